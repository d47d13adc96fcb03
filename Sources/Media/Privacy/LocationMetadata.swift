/// What "location" means, in every kind of metadata Pinhole reads: the one place that decides
/// which tags, properties, datasets and keys say where a photo or movie was taken. Detection
/// ("has a location": the library's index, Save As's "Remove location", the properties panel)
/// and removal (`LocationRemoval`) both ask only this type, for every format, so they cannot
/// disagree: a file has a location exactly when removing it would change the file.
///
/// Names are matched broadly on purpose: anything whose name says GPS, location, latitude,
/// longitude, city, state, country or region is taken, so a tag a writer invents under one of
/// those names ("drone-dji:GpsLatitude", Matroska's "RECORDING_LOCATION") goes too. That also
/// takes a creator's contact address (IPTC Core's CiAdrCity, CiAdrCtry) and a licensor's country:
/// they say where someone lives, which is no less private.
public enum LocationMetadata {
    /// The EXIF tag (in IFD0, and in IFD1 for thumbnails) that points to the GPS IFD: the GPS IFD
    /// and everything it holds is the location.
    static let exifGPSPointer: UInt16 = 0x8825

    /// The IPTC-IIM application record (record 2) datasets that name a place: 2:26 content
    /// location code, 2:27 content location name, 2:90 city, 2:92 sub-location, 2:95
    /// province/state, 2:100 country code, 2:101 country name.
    static let iptcDatasets: Set<UInt8> = [26, 27, 90, 92, 95, 100, 101]

    /// The IPTC-IIM record those datasets belong to.
    static let iptcRecord: UInt8 = 2

    /// Parts of a name, lower-cased, that make a property, key or tag a location.
    static let nameParts = ["gps", "location", "latitude", "longitude", "city", "country", "iso6709", "geotag", "altitude"]

    /// XMP properties (namespace URI, local name) that name a place without one of `nameParts`.
    static let xmpProperties: Set<[String]> = [
        ["http://ns.adobe.com/photoshop/1.0/", "State"],
        ["http://iptc.org/std/Iptc4xmpExt/2008-02-29/", "ProvinceState"],
        ["http://iptc.org/std/Iptc4xmpExt/2008-02-29/", "ProvinceCode"],
        ["http://iptc.org/std/Iptc4xmpExt/2008-02-29/", "WorldRegion"],
        ["http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", "CiAdrRegion"],
        ["http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", "CiAdrCtry"],
        ["http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", "CiAdrExtadr"],
        ["http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", "CiAdrPcode"],
    ]

    /// MP4 and QuickTime user-data boxes that hold a place: ©xyz (ISO 6709 coordinates, as
    /// phones and FFmpeg write) and 3GPP's `loci` (a named place with coordinates).
    static let movieBoxes: Set<[UInt8]> = [[0xA9, 0x78, 0x79, 0x7A], Array("loci".utf8)]

    /// True when a name (an XMP property's local name, a QuickTime key, a Matroska tag, an
    /// FFmpeg metadata key) says location.
    static func isLocationName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return nameParts.contains { lowered.contains($0) }
    }

    /// True when the XMP property `name` in namespace `namespace` is a location, whether written
    /// as an element or an attribute, at any depth (a structure's field too).
    static func isLocationProperty(namespace: String, name: String) -> Bool {
        // RDF's own syntax (rdf:Description, rdf:li, rdf:about…) and XML's never are.
        guard namespace != "http://www.w3.org/1999/02/22-rdf-syntax-ns#", namespace != "http://www.w3.org/XML/1998/namespace" else { return false }
        return isLocationName(name) || xmpProperties.contains([namespace, name])
    }

    /// True when a movie's metadata key (FFmpeg's name for a container or stream tag: MP4's
    /// "location", QuickTime's "com.apple.quicktime.location.ISO6709", Matroska's "LOCATION")
    /// is a location.
    public static func isLocationKey(_ key: String) -> Bool {
        isLocationName(key)
    }
}
