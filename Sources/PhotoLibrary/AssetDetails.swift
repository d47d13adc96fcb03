import Foundation
import Media

/// What an item's information panel shows beyond the asset's own fields, read from its file:
/// the format's name and the camera that took it.
public struct AssetDetails: Sendable, Equatable {
    /// The file's format: "JPEG", "PNG", "HEIF", "WebP", or a movie container's usual name ("MP4").
    public let format: String
    /// The camera's maker and model from EXIF ("Pinhole Test Camera"), nil when the file says none.
    public let camera: String?

    /// Details as given.
    public init(format: String, camera: String?) {
        self.format = format
        self.camera = camera
    }

    /// Reads the details of the file at `path` (a photo's first bytes and EXIF; a movie's name).
    /// Blocking: call it off the main thread.
    public static func read(path: String, mediaType: Asset.MediaType) throws(LibraryError) -> AssetDetails {
        guard mediaType == .photo else {
            let ext = path.split(separator: "/").last.flatMap { $0.contains(".") ? $0.split(separator: ".").last : nil }
            return AssetDetails(format: ext.map { $0.uppercased() } ?? "", camera: nil)
        }
        let data: [UInt8]
        do throws(MediaError) { data = try FileBytes.read(path: path) } catch { throw LibraryError.from(error) }
        guard let kind = ImageKind(sniffing: data) else {
            throw .unsupportedFile(path: path, reason: .notAnImage)
        }
        let names: [ImageKind: String] = [.jpeg: "JPEG", .png: "PNG", .heif: "HEIF", .webp: "WebP"]
        let metadata = Thumbnailer.exifMetadata(in: data, kind: kind)
        return AssetDetails(format: names[kind] ?? kind.rawValue.uppercased(), camera: cameraName(make: metadata?.make, model: metadata?.model))
    }

    /// "Make Model", without the maker twice when the model already names it ("Canon Canon EOS R6").
    public static func cameraName(make: String?, model: String?) -> String? {
        let make = make?.trimmingCharacters(in: .whitespaces) ?? "", model = model?.trimmingCharacters(in: .whitespaces) ?? ""
        if model.isEmpty { return make.isEmpty ? nil : make }
        if make.isEmpty || model.lowercased().hasPrefix(make.lowercased()) { return model }
        return make + " " + model
    }
}
