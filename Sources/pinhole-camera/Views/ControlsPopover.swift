import CameraModel
import Capture
import CGtk

/// The camera controls popover: what the camera offers of focus, exposure, white balance,
/// brightness, contrast and zoom (controls it lacks are not shown), and the photo size and the
/// video size and rate, the choices people ask for most. Rebuilt each time it opens, from the
/// model's current camera.
@MainActor
final class ControlsPopover {
    /// The menu button that opens it (in the header bar).
    let button: Widget
    private let popover: Widget
    private let model: CameraModel

    init(model: CameraModel) {
        self.model = model
        button = gtk_menu_button_new()
        gtk_menu_button_set_icon_name(cast(button), "emblem-system-symbolic")
        label(button, L("Camera Controls"))
        popover = gtk_popover_new()
        gtk_menu_button_set_popover(cast(button), popover)
        connect(UnsafeMutableRawPointer(popover), "show") { [weak self] in self?.rebuild() }
    }

    /// What the popover shows for each control.
    static func title(_ id: ControlID) -> String {
        switch id {
        case .continuousAutoFocus: L("Autofocus")
        case .focusPosition: L("Focus")
        case .exposureMode: L("Automatic Exposure")
        case .exposureTime: L("Exposure Time")
        case .autoWhiteBalance: L("Automatic White Balance")
        case .whiteBalanceTemperature: L("White Balance")
        case .brightness: L("Brightness")
        case .contrast: L("Contrast")
        case .zoom: L("Zoom")
        default: "\(id)"
        }
    }

    private func rebuild() {
        let grid = gtk_grid_new()!
        gtk_grid_set_row_spacing(cast(grid), 8)
        gtk_grid_set_column_spacing(cast(grid), 12)
        gtk_widget_set_margin_start(grid, 6)
        gtk_widget_set_margin_end(grid, 6)
        var row: Int32 = 0
        func add(_ title: String, _ widget: Widget) {
            let name = gtk_label_new(title)!
            gtk_label_set_xalign(cast(name), 0)
            pinhole_set_accessible_label(widget, title)
            gtk_grid_attach(cast(grid), name, 0, row, 1, 1)
            gtk_grid_attach(cast(grid), widget, 1, row, 1, 1)
            row += 1
        }
        for control in model.availableControls {
            let id = control.id
            let value = model.controlValues[id] ?? control.defaultValue
            if control.kind == .boolean || id == .exposureMode {
                // Automatic exposure is a menu in V4L2: manual (1) or the camera's automatic mode.
                let automatic = control.menu.first { $0.value != 1 }?.value ?? control.maximum
                let toggle = gtk_switch_new()!
                gtk_widget_set_halign(toggle, GTK_ALIGN_END)
                gtk_switch_set_active(cast(toggle), id == .exposureMode ? (value != 1 ? 1 : 0) : (value != 0 ? 1 : 0))
                connectNotify(UnsafeMutableRawPointer(toggle), "active") { [weak self] in
                    let on = gtk_switch_get_active(cast(toggle)) != 0
                    self?.model.setControl(id, to: id == .exposureMode ? (on ? automatic : 1) : (on ? 1 : 0))
                    self?.refreshSensitivity(grid)
                }
                add(Self.title(id), toggle)
            } else if control.kind == .integer {
                let scale = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, Double(control.minimum), Double(control.maximum), Double(max(1, control.step)))!
                gtk_widget_set_size_request(scale, 180, -1)
                gtk_range_set_value(cast(scale), Double(value))
                gtk_widget_set_sensitive(scale, model.isControlActive(id) ? 1 : 0)
                g_object_set_data(UnsafeMutablePointer(OpaquePointer(scale)), "pinhole-control", UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue)))
                connect(UnsafeMutableRawPointer(scale), "value-changed") { [weak self] in
                    self?.model.setControl(id, to: Int64(gtk_range_get_value(cast(scale)).rounded()))
                }
                add(Self.title(id), scale)
            }
        }
        // Sizes.
        let photoSizes = model.photoSizes
        let photoLabels = [L("Largest")] + photoSizes.map { "\($0.width) × \($0.height)" }
        let photoChoice = dropDown(photoLabels, selected: model.photoSize.flatMap { size in photoSizes.firstIndex(of: size).map { $0 + 1 } } ?? 0) { [weak self] index in
            self?.model.setPhotoSize(index == 0 ? nil : photoSizes[index - 1])
        }
        add(L("Photo Size"), photoChoice)
        let modes = model.videoModes
        let modeLabels = [L("Default")] + modes.map { "\($0.size.width) × \($0.size.height), \($0.framesPerSecond) fps" }
        let modeChoice = dropDown(modeLabels, selected: model.videoMode.flatMap { mode in modes.firstIndex(of: mode).map { $0 + 1 } } ?? 0) { [weak self] index in
            self?.model.setVideoMode(index == 0 ? nil : modes[index - 1])
        }
        add(L("Video Size"), modeChoice)
        gtk_popover_set_child(cast(popover), grid)
    }

    /// Greys out controls that do not apply (manual focus while autofocus is on, …).
    private func refreshSensitivity(_ grid: Widget) {
        after(milliseconds: 50) { [weak self] in
            guard let self else { return }
            var child = gtk_widget_get_first_child(grid)
            while let widget = child {
                if let tag = g_object_get_data(UnsafeMutablePointer(OpaquePointer(widget)), "pinhole-control") {
                    let id = ControlID(rawValue: UInt32(UInt(bitPattern: tag)))
                    gtk_widget_set_sensitive(widget, self.model.isControlActive(id) ? 1 : 0)
                }
                child = gtk_widget_get_next_sibling(widget)
            }
        }
    }

    /// A drop-down of `labels` whose choice calls `chosen` with its index.
    private func dropDown(_ labels: [String], selected: Int, _ chosen: @escaping @MainActor (Int) -> Void) -> Widget {
        var pointers: [UnsafePointer<CChar>?] = labels.map { UnsafePointer(strdup($0)) } + [nil]
        let drop = pointers.withUnsafeMutableBufferPointer { gtk_drop_down_new_from_strings($0.baseAddress) }!
        for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
        gtk_drop_down_set_selected(cast(drop), guint(selected))
        connectNotify(UnsafeMutableRawPointer(drop), "selected") {
            chosen(Int(gtk_drop_down_get_selected(cast(drop))))
        }
        return drop
    }
}
