import Foundation
import Glibc
import Media

/// Reading assets.
extension PhotoLibrary {
    /// The asset with `id`, if any.
    public func asset(id: String) throws(LibraryError) -> Asset? {
        try assets(where: "id = ?", [.text(id)]).first
    }

    /// Assets, newest first by default, optionally only one media type, favourites, or those
    /// taken in [`since`, `until`) (seconds since 1970), paged.
    public func assets(mediaType: Asset.MediaType? = nil, favoritesOnly: Bool = false, since: Double? = nil, until: Double? = nil,
                       newestFirst: Bool = true, limit: Int? = nil, offset: Int = 0) throws(LibraryError) -> [Asset] {
        var conditions: [String] = []
        var parameters: [Database.Value] = []
        if let mediaType { conditions.append("media_type = ?"); parameters.append(.text(mediaType.rawValue)) }
        if favoritesOnly { conditions.append("favorite = 1") }
        if let since { conditions.append("created >= ?"); parameters.append(.real(since)) }
        if let until { conditions.append("created < ?"); parameters.append(.real(until)) }
        let filter = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        return try assets(where: filter + " ORDER BY created \(newestFirst ? "DESC" : "ASC"), id LIMIT \(limit ?? -1) OFFSET \(offset)", parameters)
    }

    /// How many assets there are.
    public var count: Int {
        get throws(LibraryError) { Int(try database.query("SELECT COUNT(*) FROM assets").first?.first?.integer ?? 0) }
    }

    func assets(where clause: String, _ parameters: [Database.Value]) throws(LibraryError) -> [Asset] {
        try database.query("SELECT \(PhotoLibrary.assetColumns) FROM assets WHERE \(clause)", parameters).map(PhotoLibrary.asset(from:))
    }

    /// The columns `asset(from:)` reads, in order (the `trashed` table has them too).
    static let assetColumns = "id, media_type, path, width, height, created, orientation, favorite, latitude, longitude, altitude, size, duration, has_location"

    /// The asset of a row of `assetColumns`.
    static func asset(from row: [Database.Value]) -> Asset {
        let location = row[8].real.flatMap { latitude in row[9].real.map { ExifLocation(latitude: latitude, longitude: $0, altitude: row[10].real) } }
        return Asset(id: row[0].text ?? "", mediaType: Asset.MediaType(rawValue: row[1].text ?? "") ?? .photo, path: row[2].text ?? "",
                     pixelWidth: Int(row[3].integer ?? 0), pixelHeight: Int(row[4].integer ?? 0), creationDate: row[5].real ?? 0,
                     orientation: ExifOrientation(rawValue: Int(row[6].integer ?? 1)) ?? .up, isFavorite: row[7].integer == 1,
                     location: location, hasLocation: location != nil || row[13].integer != 0, fileSize: Int(row[11].integer ?? 0), duration: row[12].real)
    }
}
