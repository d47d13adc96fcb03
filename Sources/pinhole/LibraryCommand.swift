import Foundation
import Media
import PhotoLibrary

/// `pinhole library …`: the photo library shared with the app.
enum LibraryCommand {
    static var help: String {
        Help.page(L("Usage: pinhole library COMMAND [options]"),
                  L("The photo library: photos in $XDG_PICTURES_DIR/Camera, videos in $XDG_VIDEOS_DIR/Camera, and an\nindex in $XDG_DATA_HOME/pinhole/library.sqlite3 (PINHOLE_LIBRARY=DIR: a self-contained library in DIR)."),
                  [.init("list [--json] [--type photo|video] [--favorites] [--album NAME] [--since DATE] [--limit N]",
                         L("newest first; DATE is YYYY-MM-DD or YYYY-MM-DDTHH:MM (local time)"), below: true),
                   .init("info ID [--json]"),
                   .init("import FILE…", L("copy photos (JPEG, PNG, HEIF, WebP) and videos (MP4, MOV, WebM, MKV) in;\nchecked first; duplicates reported, not added")),
                   .init("export ID… --to DIR [--strip-location]", L("copy out; --strip-location removes where it was taken")),
                   .init("delete ID…", L("move to the Trash (restorable)")),
                   .init("restore ID…", L("bring back from the Trash")),
                   .init("favorite ID… [--off]"),
                   .init("thumbnail ID [--size normal|large|x-large|xx-large]", L("print the freedesktop thumbnail's path")),
                   .init("thumbnails [--size SIZE]", L("make every missing or stale thumbnail now (default: large)")),
                   .init("albums", L("the albums with their sizes")),
                   .init("album create|delete NAME | album rename NAME NEW | album add|remove NAME ID… | album cover NAME [ID]"),
                   .init("verify [--repair]", L("check the index against the files (--repair: make them agree)")),
                   .init("-h, --help")], width: 33)
    }

    static func run(_ arguments: [String]) async throws(CLIError) {
        guard let command = arguments.first, command != "-h", command != "--help" else { output(help); return }
        var options = Arguments(Array(arguments.dropFirst()))
        if options.flag("-h", "--help") { output(help); return }
        let library = try await open(synchronize: command != "verify")
        do {
            try await run(command, &options, library)
        } catch {
            await library.stopBackgroundThumbnails()
            throw error
        }
        await library.stopBackgroundThumbnails()
    }

    /// Runs `command` on the open library (its thumbnails made in the background are stopped
    /// by the caller before the process exits).
    static func run(_ command: String, _ options: inout Arguments, _ library: PhotoLibrary) async throws(CLIError) {
        do {
            switch command {
            case "list":
                let json = options.flag("--json"), favorites = options.flag("--favorites")
                let typeText = try options.option("--type")
                let album = try options.option("--album")
                let sinceText = try options.option("--since")
                var since: Double?
                if let sinceText {
                    guard let date = parseDate(sinceText) else { throw CLIError.usage(L("--since must be YYYY-MM-DD or YYYY-MM-DDTHH:MM, not '%@'", sinceText)) }
                    since = date
                }
                let limit = try options.integer("--limit", range: 1...1_000_000)
                _ = try options.finish()
                var type: Asset.MediaType?
                if let typeText {
                    guard let value = Asset.MediaType(rawValue: typeText) else { throw CLIError.usage(L("--type must be photo or video, not '%@'", typeText)) }
                    type = value
                }
                var assets: [Asset]
                if let album {
                    assets = try await library.assets(inAlbum: album)
                    assets = assets.filter { (type == nil || $0.mediaType == type) && (!favorites || $0.isFavorite) && $0.creationDate >= (since ?? -.infinity) }
                    if let limit { assets = Array(assets.prefix(limit)) }
                } else {
                    assets = try await library.assets(mediaType: type, favoritesOnly: favorites, since: since, limit: limit)
                }
                if json { printJSON(assets.map(describe)) } else { for asset in assets { output(line(asset)) } }
            case "info":
                let json = options.flag("--json")
                let ids = try options.finish(maximumPositionals: 1)
                guard let id = ids.first else { throw CLIError.usage(L("info needs an asset ID (see `pinhole library list`)")) }
                guard let asset = try await library.asset(id: id) else { throw CLIError.library(.notFound(id)) }
                if json { printJSON(describe(asset)) } else { for (key, value) in describe(asset).sorted(by: { $0.key < $1.key }) { output("\(key): \(value)") } }
            case "import":
                let files = try options.finish(maximumPositionals: .max)
                guard !files.isEmpty else { throw CLIError.usage(L("import needs at least one file")) }
                var failed: CLIError?
                for file in files {
                    do {
                        let asset = try await library.importFile(at: file)
                        output("\(asset.id)\t\(asset.path)")
                    } catch {
                        // Reported either way; a duplicate is not a failure.
                        report(CLIError.importLine(for: error))
                        if case .duplicate = error {} else { failed = .library(error) }
                    }
                }
                if let failed { throw CLIError.reported(failed.exitCode) }
            case "export":
                let folder = try options.option("--to")
                let strip = options.flag("--strip-location")
                let ids = try options.finish(maximumPositionals: .max)
                guard let folder, !ids.isEmpty else { throw CLIError.usage(L("export needs asset IDs and --to DIR")) }
                for path in try await library.export(ids: ids, to: folder, stripLocation: strip) { output(path) }
            case "delete":
                let ids = try options.finish(maximumPositionals: .max)
                guard !ids.isEmpty else { throw CLIError.usage(L("delete needs asset IDs")) }
                try await library.delete(ids: ids)
            case "restore":
                let ids = try options.finish(maximumPositionals: .max)
                guard !ids.isEmpty else { throw CLIError.usage(L("restore needs asset IDs")) }
                for asset in try await library.restore(ids: ids) { output("\(asset.id)\t\(asset.path)") }
            case "favorite":
                let off = options.flag("--off")
                let ids = try options.finish(maximumPositionals: .max)
                guard !ids.isEmpty else { throw CLIError.usage(L("favorite needs asset IDs")) }
                try await library.setFavorite(!off, ids: ids)
            case "thumbnail":
                let size = try thumbnailSize(try options.option("--size") ?? "large")
                let ids = try options.finish(maximumPositionals: 1)
                guard let id = ids.first else { throw CLIError.usage(L("thumbnail needs an asset ID")) }
                output(try await library.thumbnail(for: id, size: size))
            case "thumbnails":
                let size = try thumbnailSize(try options.option("--size") ?? "large")
                _ = try options.finish()
                output(L("thumbnails: %@ made", String(try await library.prepareThumbnails(size: size))))
            case "albums":
                _ = try options.finish()
                for album in try await library.albums() { output("\(album.name)\t\(album.count)") }
            case "album":
                let words = try options.finish(maximumPositionals: .max)
                guard words.count >= 2 else { throw CLIError.usage(L("album needs an action and a name: create, rename, delete, add, remove, cover")) }
                let (action, name, rest) = (words[0], words[1], Array(words.dropFirst(2)))
                switch action {
                case "create" where rest.isEmpty: try await library.createAlbum(name)
                case "delete" where rest.isEmpty: try await library.deleteAlbum(name)
                case "rename" where rest.count == 1: try await library.renameAlbum(name, to: rest[0])
                case "add" where !rest.isEmpty: try await library.add(ids: rest, toAlbum: name)
                case "remove" where !rest.isEmpty: try await library.remove(ids: rest, fromAlbum: name)
                case "cover" where rest.count == 1: try await library.setCover(rest[0], ofAlbum: name)
                case "cover" where rest.isEmpty:
                    if let cover = try await library.cover(ofAlbum: name) { output("\(cover.id)\t\(cover.path)") }
                default: throw CLIError.usage(L("album %@: see `pinhole library --help` for its arguments", action))
                }
            case "verify":
                let repair = options.flag("--repair")
                _ = try options.finish()
                if repair {
                    let changes = try await library.synchronize()
                    // What the repair could not take (a damaged file dropped into the folders) is
                    // named as an opening names it: without it, "0 added" and a later `verify`
                    // saying "1 files not in the index" would leave the user looking for which.
                    await reportSkipped(library)
                    output(L("verify: index repaired: %@ added, %@ removed", String(changes.added), String(changes.removed)))
                } else {
                    let differences = try await library.differences()
                    output(L("verify: %@ files not in the index, %@ rows without a file", String(differences.missingFromIndex.count), String(differences.missingFiles.count)))
                    if !differences.missingFromIndex.isEmpty || !differences.missingFiles.isEmpty { throw CLIError.reported(ExitCode.failure) }
                }
            default:
                throw CLIError.usage(L("unknown library command '%@'", command))
            }
        } catch let error as CLIError {
            throw error
        } catch let error as LibraryError {
            throw .library(error)
        } catch {
            throw .usage("\(error)")
        }
    }

    /// The user's library (or the one at $PINHOLE_LIBRARY, a folder, for portable use).
    /// Files in its folders that the library could not take as they are are named on standard
    /// error, one line each, at every opening: it opens without them, and they are found.
    static func open(synchronize: Bool = true) async throws(CLIError) -> PhotoLibrary {
        let location = ProcessInfo.processInfo.environment["PINHOLE_LIBRARY"].map { LibraryLocation(folder: $0) } ?? .user
        let library: PhotoLibrary
        do { library = try await PhotoLibrary(location: location, synchronize: synchronize) } catch { throw .library(error) }
        await reportSkipped(library)
        return library
    }

    /// Names on standard error, one line each, the files in the library's folders that its last
    /// reconcile (at opening, or `synchronize`) did not take as they are.
    static func reportSkipped(_ library: PhotoLibrary) async {
        for file in await library.skippedFiles {
            report(CLIError.skippedLine(for: file))
        }
    }

    /// The freedesktop size named by --size.
    static func thumbnailSize(_ name: String) throws(CLIError) -> ThumbnailSize {
        guard let size = ThumbnailSize.allCases.first(where: { $0.folderName == name }) else {
            throw CLIError.usage(L("--size must be normal, large, x-large or xx-large, not '%@'", name))
        }
        return size
    }

    /// Seconds since 1970 of a local date ("2026-11-29") or date and time ("2026-11-29T14:03").
    static func parseDate(_ text: String) -> Double? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    static func line(_ asset: Asset) -> String {
        let date = Date(timeIntervalSince1970: asset.creationDate)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let length = asset.duration.map { "  " + duration($0) } ?? ""
        return "\(asset.id)  \(formatter.string(from: date))  \(asset.pixelWidth)×\(asset.pixelHeight)\(length)\(asset.isFavorite ? "  ★" : "")  \(asset.path)"
    }

    /// "0:07", "12:03", "1:02:03".
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }

    static func describe(_ asset: Asset) -> [String: Any] {
        var object: [String: Any] = ["id": asset.id, "type": asset.mediaType.rawValue, "path": asset.path, "width": asset.pixelWidth,
                                     "height": asset.pixelHeight, "created": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: asset.creationDate)),
                                     "orientation": asset.orientation.rawValue, "favorite": asset.isFavorite, "size": asset.fileSize]
        if let location = asset.location { object["latitude"] = location.latitude; object["longitude"] = location.longitude }
        object["hasLocation"] = asset.hasLocation
        if let duration = asset.duration { object["duration"] = (duration * 1000).rounded() / 1000 }
        return object
    }

    static func printJSON(_ object: Any) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        output(String(decoding: data, as: UTF8.self))
    }
}
