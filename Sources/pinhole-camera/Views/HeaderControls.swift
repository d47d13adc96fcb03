import CameraModel
import CGtk

/// The header bar: photo/video switch, flash, self-timer, grid, filter and the main menu. Each
/// control is a GAction's button, so keys and D-Bus reach the same code.
///
/// It fits a phone's 360-pixel-wide window: where the full set does not fit, squeezers show the
/// mode switch as icons and gather grid and filter into one "More Controls" menu.
@MainActor
final class HeaderControls {
    /// The AdwHeaderBar.
    let widget: Widget
    let photoMode: Widget
    let videoMode: Widget
    /// The icon-only mode switch shown when the header is narrow.
    let compactPhotoMode: Widget
    let compactVideoMode: Widget
    let flashButton: Widget
    let timerButton: Widget
    let gridButton: Widget
    let filterButton: Widget

    /// The camera controls and sizes.
    let controls: ControlsPopover

    init(model: CameraModel) {
        controls = ControlsPopover(model: model)
        widget = adw_header_bar_new()!
        (photoMode, videoMode) = HeaderControls.modeSwitch(photo: gtk_toggle_button_new_with_label(L("Photo")), video: gtk_toggle_button_new_with_label(L("Video")))
        (compactPhotoMode, compactVideoMode) = HeaderControls.modeSwitch(photo: gtk_toggle_button_new(), video: gtk_toggle_button_new())
        gtk_button_set_icon_name(cast(compactPhotoMode), "camera-photo-symbolic")
        label(compactPhotoMode, L("Photo"))
        gtk_button_set_icon_name(cast(compactVideoMode), "camera-video-symbolic")
        label(compactVideoMode, L("Video"))
        adw_header_bar_set_title_widget(cast(widget), HeaderControls.squeezer([gtk_widget_get_parent(photoMode), gtk_widget_get_parent(compactPhotoMode)]))

        flashButton = HeaderControls.menuButton(icon: "pinhole-flash-off-symbolic", name: L("Flash"),
                                                items: [(L("Flash Off"), "app.flash::off"), (L("Flash On"), "app.flash::on"), (L("Flash Auto"), "app.flash::auto")])
        timerButton = HeaderControls.menuButton(icon: "pinhole-timer-symbolic", name: L("Self-Timer"),
                                                items: [(L("Timer Off"), "app.timer::0"), (L("3 Seconds"), "app.timer::3"), (L("5 Seconds"), "app.timer::5"), (L("10 Seconds"), "app.timer::10")])
        gridButton = gtk_toggle_button_new()
        gtk_button_set_icon_name(cast(gridButton), "view-grid-symbolic")
        label(gridButton, L("Grid"))
        gtk_actionable_set_action_name(cast(gridButton), "app.toggle-grid")
        filterButton = HeaderControls.menuButton(icon: "pinhole-filter-symbolic", name: L("Filter"),
                                                 items: [(L("No Filter"), "app.filter::none"), (L("Mono"), "app.filter::mono"), (L("Noir"), "app.filter::noir"),
                                                         (L("Sepia"), "app.filter::sepia"), (L("Invert"), "app.filter::invert")])
        adw_header_bar_pack_start(cast(widget), flashButton)
        adw_header_bar_pack_start(cast(widget), timerButton)
        let menu = HeaderControls.menuButton(icon: "open-menu-symbolic", name: L("Main Menu"),
                                             items: [(L("Use Test Camera"), "camera.use-test-camera"), (L("Import…"), "app.import"), (L("Preferences"), "app.preferences"),
                                                     (L("Keyboard Shortcuts"), "win.show-help-overlay"), (L("About Pinhole"), "app.about")])
        adw_header_bar_pack_end(cast(widget), menu)
        adw_header_bar_pack_end(cast(widget), controls.button)
        let wide = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_box_append(cast(wide), gridButton)
        gtk_box_append(cast(wide), filterButton)
        let more = HeaderControls.menuButton(icon: "view-more-symbolic", name: L("More Controls"),
                                             items: [(L("Grid"), "app.toggle-grid"), (L("No Filter"), "app.filter::none"), (L("Mono"), "app.filter::mono"),
                                                     (L("Noir"), "app.filter::noir"), (L("Sepia"), "app.filter::sepia"), (L("Invert"), "app.filter::invert")])
        adw_header_bar_pack_end(cast(widget), HeaderControls.squeezer([wide, more]))
    }

    /// Two linked toggle buttons in one group, bound to app.mode.
    static func modeSwitch(photo: Widget, video: Widget) -> (Widget, Widget) {
        let modes = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        addClass(modes, "linked")
        gtk_toggle_button_set_group(cast(video), cast(photo))
        gtk_actionable_set_detailed_action_name(cast(photo), "app.mode::photo")
        gtk_actionable_set_detailed_action_name(cast(video), "app.mode::video")
        gtk_box_append(cast(modes), photo)
        gtk_box_append(cast(modes), video)
        return (photo, video)
    }

    /// Shows the first of `children` that fits (the wide form first, then the compact one).
    static func squeezer(_ children: [Widget?]) -> Widget {
        let squeezer = adw_squeezer_new()!
        adw_squeezer_set_transition_type(cast(squeezer), ADW_SQUEEZER_TRANSITION_TYPE_NONE)
        for child in children { _ = adw_squeezer_add(cast(squeezer), child) }
        return squeezer
    }

    /// An icon-only menu button whose menu items are detailed action names. Its popover menu is
    /// made the first time it opens, not with the window: GTK builds a popover and a widget per
    /// item as soon as a menu model is set, and the header's five menus did so at every start.
    static func menuButton(icon: String, name: String, items: [(String, String)]) -> Widget {
        let button = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(cast(button), icon)
        label(button, name)
        let menu = g_menu_new()
        for (title, action) in items { g_menu_append(menu, title, action) }
        // The button keeps the menu (unreferenced with the button) until it first opens.
        gtk_menu_button_set_create_popup_func(cast(button), { button, menu in
            guard let button, let menu, gtk_menu_button_get_popover(button) == nil else { return }
            gtk_menu_button_set_menu_model(button, menu.assumingMemoryBound(to: GMenuModel.self))
        }, UnsafeMutableRawPointer(menu), { menu in g_object_unref(menu) })
        return button
    }

    /// Shows what the actions' states do not: the flash's icon and name, the self-timer's name,
    /// each from what it observes (touched only when that changed: rebuilding a control would
    /// also renew its accessible object under a screen reader's feet), until the subscriptions
    /// end. The mode switch and the grid button follow their stateful actions (`app.mode`,
    /// `app.toggle-grid`), and the menus mark the choices made.
    func watch(_ model: CameraModel) -> [Subscription] {
        [observe { [flashButton] in
             gtk_menu_button_set_icon_name(cast(flashButton), "pinhole-flash-\(model.flash.rawValue)-symbolic")
             label(flashButton, [FlashSetting.off: L("Flash: Off"), .on: L("Flash: On"), .auto: L("Flash: Auto")][model.flash]!)
         },
         observe { [timerButton] in
             label(timerButton, model.countdown == 0 ? L("Self-Timer: Off") : CameraWords.translate("Self-Timer: %@ s", String(model.countdown)))
         }]
    }
}
