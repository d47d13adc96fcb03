import CGtk

/// The app's CSS: the round shutter, the on-screen controls, the screen flash, the countdown,
/// the gallery's cells (a neutral tile stands in for a thumbnail not loaded yet).
enum Style {
    static let css = """
    .preview { background-color: black; }
    .shutter { min-width: 72px; min-height: 72px; padding: 0; border-radius: 50%;
               background: white; border: 5px solid alpha(white, 0.5); background-clip: padding-box; }
    .shutter.video { background: #e01b24; }
    .shutter.recording { background: #e01b24; border-radius: 30%; }
    .control-bar { padding: 18px; background: linear-gradient(to top, alpha(black, 0.45), transparent); }
    .thumbnail-button { min-width: 56px; min-height: 56px; padding: 0; border: 2px solid white; }
    .round-control { min-width: 48px; min-height: 48px; -gtk-icon-size: 24px; }
    .elapsed { color: white; font-weight: bold; font-feature-settings: "tnum"; }
    .screen-flash { background-color: white; }
    .dimmed-preview { background-color: alpha(black, 0.6); color: white; font-size: 18pt; }
    .countdown { color: white; font-size: 96pt; font-weight: 800; background-color: alpha(black, 0.45);
                 border-radius: 32px; padding: 0 40px; }
    .shutter-blink .preview { opacity: 0.3; }
    .confirm-photo { background-color: black; }
    .gallery-cell picture { border-radius: 6px; background-color: alpha(currentColor, 0.08); }
    .gallery-badge { color: white; background-color: alpha(black, 0.6); border-radius: 6px; padding: 2px 6px; margin: 6px;
                     font-feature-settings: "tnum"; }
    """

    /// Loads the CSS for the default display.
    static func install() {
        let provider = gtk_css_provider_new()
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(gdk_display_get_default(), OpaquePointer(provider), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        g_object_unref(provider)
    }
}
