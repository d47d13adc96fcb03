import Foundation
import Glibc
import Media

/// Deleting to the freedesktop Trash, and restoring from it.
extension PhotoLibrary {
    /// Moves assets to the freedesktop Trash (restorable); all or nothing.
    public func delete(ids: [String]) throws(LibraryError) {
        let assets = try ids.map { id throws(LibraryError) -> Asset in
            guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
            return asset
        }
        var moved: [(Asset, String)] = []
        do {
            for asset in assets { moved.append((asset, try trash.trash(asset.path))) }
            try database.transaction { () throws(LibraryError) in
                for (asset, name) in moved {
                    try database.query("DELETE FROM assets WHERE id = ?", [.text(asset.id)])
                    try database.query("INSERT OR REPLACE INTO trashed (id, trash_name, favorite) VALUES (?, ?, ?)",
                                       [.text(asset.id), .text(name), .integer(asset.isFavorite ? 1 : 0)])
                }
            }
        } catch {
            for (_, name) in moved.reversed() { _ = try? trash.restore(name) }  // put back what was moved
            throw error
        }
        publish()
    }

    /// Brings trashed assets back from the Trash (same identifiers, favourites kept).
    @discardableResult
    public func restore(ids: [String]) throws(LibraryError) -> [Asset] {
        var restored: [Asset] = []
        for id in ids {
            guard let row = try database.query("SELECT trash_name, favorite FROM trashed WHERE id = ?", [.text(id)]).first,
                  let name = row[0].text else { throw LibraryError.notFound(id) }
            let path = try trash.restore(name)
            try database.query("DELETE FROM trashed WHERE id = ?", [.text(id)])
            _ = try PhotoLibrary.reconcile(database, location)
            if row[1].integer == 1 { try database.query("UPDATE assets SET favorite = 1 WHERE path = ?", [.text(path)]) }
            if let asset = try assets(where: "path = ?", [.text(path)]).first { restored.append(asset) }
        }
        publish()
        return restored
    }
}
