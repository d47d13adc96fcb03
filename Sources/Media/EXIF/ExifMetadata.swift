import CExif
import Foundation

/// The EXIF metadata Pinhole writes into photos and reads back from them.
///
/// `encoded()` produces a JPEG APP1 payload with libexif; `init(exifPayload:)` reads one (from
/// Pinhole or any other writer). Fields not recorded are nil, and so are fields whose value is
/// present but unusable (a blank date, an orientation of 0, a GPS position without its
/// longitude), while a structurally damaged block is an error.
///
/// Tags written (an empty field writes nothing):
/// - IFD0: Make, Model, Orientation, Software, DateTime, and the mandatory XResolution and
///   YResolution (72), ResolutionUnit (inches) and YCbCrPositioning (centred).
/// - EXIF IFD: ExifVersion "0231" (the first version with the OffsetTime tags; with "0230",
///   exiftool -validate flags them); DateTimeOriginal and DateTimeDigitized with their
///   SubSecTime… and OffsetTime… companions (DateTime gets SubSecTime and OffsetTime);
///   PixelXDimension and PixelYDimension; the mandatory ComponentsConfiguration (Y Cb Cr),
///   FlashpixVersion "0100" and ColorSpace (sRGB).
/// - GPS IFD, only with a location: GPSVersionID 2.3.0.0, GPSLatitude(Ref), GPSLongitude(Ref),
///   GPSAltitude(Ref) when known, and GPSDateStamp + GPSTimeStamp when the fix has a timestamp.
public struct ExifMetadata: Sendable, Hashable {
    /// The camera's maker (Make), e.g. the V4L2 driver or USB vendor name.
    public var make: String?
    /// The camera's model (Model).
    public var model: String?
    /// The software that made the file (Software), e.g. "Pinhole 1.0".
    public var software: String?
    /// When the photo was taken: DateTimeOriginal with SubSecTimeOriginal and OffsetTimeOriginal.
    /// Also written as DateTime and DateTimeDigitized (with their companions).
    public var dateTimeOriginal: ExifDateTime?
    /// The image's width in pixels (PixelXDimension), as stored, before applying the orientation.
    public var pixelWidth: Int?
    /// The image's height in pixels (PixelYDimension), as stored.
    public var pixelHeight: Int?
    /// How the stored image must be turned to be upright (Orientation). Never applied to pixels.
    public var orientation: ExifOrientation?
    /// Where the photo was taken (the GPS IFD); nil for none.
    public var location: ExifLocation?

    /// Makes metadata; every field is optional.
    public init(make: String? = nil, model: String? = nil, software: String? = nil, dateTimeOriginal: ExifDateTime? = nil,
                pixelWidth: Int? = nil, pixelHeight: Int? = nil, orientation: ExifOrientation? = nil, location: ExifLocation? = nil) {
        self.make = make
        self.model = model
        self.software = software
        self.dateTimeOriginal = dateTimeOriginal
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.orientation = orientation
        self.location = location
    }

    /// Reads an EXIF block: a JPEG APP1 payload ("Exif\0\0" + TIFF) or a bare TIFF block.
    ///
    /// The structure is checked in Swift first: a missing header, an unknown byte order, or an IFD,
    /// value or thumbnail reaching past the end throws `.corruptData(format: "EXIF", …)`; a block
    /// over `ExifPayload.maximumSize` throws `.invalidMetadata`. Then libexif parses it.
    public init(exifPayload: [UInt8]) throws(MediaError) {
        try ExifPayload.checkSize(exifPayload.count)
        _ = try TIFFLayout(payload: exifPayload)
        let reader = try ExifReader(payload: ExifPayload.withHeader(exifPayload))
        let ifd0 = EXIF_IFD_0, exif = EXIF_IFD_EXIF
        make = reader.string(ifd0, ExifTagNumber.make)
        model = reader.string(ifd0, ExifTagNumber.model)
        software = reader.string(ifd0, ExifTagNumber.software)
        orientation = reader.integers(ifd0, ExifTagNumber.orientation).flatMap { $0.first }.flatMap(ExifOrientation.init(rawValue:))
        pixelWidth = reader.integers(exif, ExifTagNumber.pixelXDimension).flatMap { $0.first }.flatMap { $0 > 0 ? $0 : nil }
        pixelHeight = reader.integers(exif, ExifTagNumber.pixelYDimension).flatMap { $0.first }.flatMap { $0 > 0 ? $0 : nil }
        dateTimeOriginal = reader.string(exif, ExifTagNumber.dateTimeOriginal).flatMap {
            ExifDateTime(exifDateTime: $0, subSecTime: reader.string(exif, ExifTagNumber.subSecTimeOriginal),
                         offsetTime: reader.string(exif, ExifTagNumber.offsetTimeOriginal))
        }
        location = ExifMetadata.location(from: reader)
    }

    /// The EXIF block for these fields: "Exif\0\0" + a TIFF structure in `byteOrder`, ready to
    /// be a JPEG APP1 payload (see `JPEGExif.inserting`).
    ///
    /// Throws `.invalidMetadata` for values EXIF cannot hold (a text with a NUL, a size of zero or
    /// over 2³²−1, a latitude over 90°…) or when the block would exceed `ExifPayload.maximumSize`.
    public func encoded(byteOrder: TIFFByteOrder = .bigEndian) throws(MediaError) -> [UInt8] {
        let writer = try ExifWriter(byteOrder: byteOrder)
        let ifd0 = EXIF_IFD_0, exif = EXIF_IFD_EXIF, gps = EXIF_IFD_GPS
        if let make { try writer.ascii(ifd0, ExifTagNumber.make, make, name: "Make") }
        if let model { try writer.ascii(ifd0, ExifTagNumber.model, model, name: "Model") }
        if let orientation { try writer.shorts(ifd0, ExifTagNumber.orientation, [UInt16(orientation.rawValue)]) }
        try writer.rationals(ifd0, ExifTagNumber.xResolution, [(72, 1)])
        try writer.rationals(ifd0, ExifTagNumber.yResolution, [(72, 1)])
        try writer.shorts(ifd0, ExifTagNumber.resolutionUnit, [2])
        if let software { try writer.ascii(ifd0, ExifTagNumber.software, software, name: "Software") }
        try writer.shorts(ifd0, ExifTagNumber.yCbCrPositioning, [1])

        try writer.bytes(exif, ExifTagNumber.exifVersion, Array("0231".utf8), undefined: true)
        try writer.bytes(exif, ExifTagNumber.componentsConfiguration, [1, 2, 3, 0], undefined: true)
        try writer.bytes(exif, ExifTagNumber.flashpixVersion, Array("0100".utf8), undefined: true)
        try writer.shorts(exif, ExifTagNumber.colorSpace, [1])
        if let dateTimeOriginal {
            let triples: [(ExifIfd, UInt16, UInt16, UInt16)] = [
                (ifd0, ExifTagNumber.dateTime, ExifTagNumber.subSecTime, ExifTagNumber.offsetTime),
                (exif, ExifTagNumber.dateTimeOriginal, ExifTagNumber.subSecTimeOriginal, ExifTagNumber.offsetTimeOriginal),
                (exif, ExifTagNumber.dateTimeDigitized, ExifTagNumber.subSecTimeDigitized, ExifTagNumber.offsetTimeDigitized),
            ]
            for (ifd, dateTag, subSecTag, offsetTag) in triples {
                try writer.ascii(ifd, dateTag, dateTimeOriginal.exifDateTime, name: "DateTime")
                // SubSecTime and OffsetTime live in the EXIF IFD even for IFD0's DateTime.
                if let subSec = dateTimeOriginal.exifSubSecTime { try writer.ascii(exif, subSecTag, subSec, name: "SubSecTime") }
                if let offset = dateTimeOriginal.exifOffsetTime { try writer.ascii(exif, offsetTag, offset, name: "OffsetTime") }
            }
        }
        for (value, tag, name) in [(pixelWidth, ExifTagNumber.pixelXDimension, "width"), (pixelHeight, ExifTagNumber.pixelYDimension, "height")] {
            guard let value else { continue }
            guard value > 0, value <= Int(UInt32.max) else {
                throw .invalidMetadata("a pixel \(name) of \(value) cannot be written (1…\(UInt32.max))")
            }
            try writer.longs(exif, tag, [UInt32(value)])
        }

        if let location {
            try location.validate()
            try writer.bytes(gps, ExifTagNumber.gpsVersionID, [2, 3, 0, 0])
            try writer.ascii(gps, ExifTagNumber.gpsLatitudeRef, location.latitude < 0 ? "S" : "N", name: "GPSLatitudeRef")
            try writer.rationals(gps, ExifTagNumber.gpsLatitude, ExifMetadata.degreesMinutesSeconds(location.latitude))
            try writer.ascii(gps, ExifTagNumber.gpsLongitudeRef, location.longitude < 0 ? "W" : "E", name: "GPSLongitudeRef")
            try writer.rationals(gps, ExifTagNumber.gpsLongitude, ExifMetadata.degreesMinutesSeconds(location.longitude))
            if let altitude = location.altitude {
                try writer.bytes(gps, ExifTagNumber.gpsAltitudeRef, [altitude < 0 ? 1 : 0])
                try writer.rationals(gps, ExifTagNumber.gpsAltitude, [(UInt32((abs(altitude) * 1000).rounded()), 1000)])
            }
            if let timestamp = location.timestamp {
                let utc = try ExifDateTime(date: timestamp, timeZone: TimeZone(secondsFromGMT: 0)!)
                let seconds = UInt32(utc.second * 1000 + (utc.millisecond ?? 0))
                try writer.rationals(gps, ExifTagNumber.gpsTimeStamp, [(UInt32(utc.hour), 1), (UInt32(utc.minute), 1), (seconds, 1000)])
                try writer.ascii(gps, ExifTagNumber.gpsDateStamp, String(utc.exifDateTime.prefix(10)), name: "GPSDateStamp")
            }
        }
        return try writer.encoded()
    }

    /// Degrees, minutes and seconds (to 1/10000 s) of the magnitude of `value`, as three rationals.
    static func degreesMinutesSeconds(_ value: Double) -> [(UInt32, UInt32)] {
        let units = UInt64((abs(value) * 3600 * 10_000).rounded())
        let perDegree: UInt64 = 3600 * 10_000, perMinute: UInt64 = 60 * 10_000
        return [(UInt32(units / perDegree), 1), (UInt32(units % perDegree / perMinute), 1), (UInt32(units % perMinute), 10_000)]
    }

    /// The location in the GPS IFD, or nil when latitude or longitude is missing or unusable.
    private static func location(from reader: borrowing ExifReader) -> ExifLocation? {
        let gps = EXIF_IFD_GPS
        /// Signed degrees from a degrees-minutes-seconds tag and its reference letter; nil when
        /// missing, over `limit`, or with a letter other than `positive` or `negative`.
        func coordinate(_ tag: UInt16, _ refTag: UInt16, positive: String, negative: String, limit: Double) -> Double? {
            guard let parts = reader.rationals(gps, tag), parts.count <= 3 else { return nil }
            let magnitude = zip(parts, [1.0, 60, 3600]).reduce(0) { $0 + $1.0 / $1.1 }
            guard magnitude.isFinite, magnitude <= limit else { return nil }
            switch reader.string(gps, refTag)?.uppercased().first.map(String.init) {
            case nil, positive?: return magnitude
            case negative?: return -magnitude
            default: return nil
            }
        }
        guard let latitude = coordinate(ExifTagNumber.gpsLatitude, ExifTagNumber.gpsLatitudeRef, positive: "N", negative: "S", limit: 90),
              let longitude = coordinate(ExifTagNumber.gpsLongitude, ExifTagNumber.gpsLongitudeRef, positive: "E", negative: "W", limit: 180) else {
            return nil
        }
        var altitude = reader.rationals(gps, ExifTagNumber.gpsAltitude)?.first
        if let magnitude = altitude, reader.integers(gps, ExifTagNumber.gpsAltitudeRef)?.first == 1 { altitude = -magnitude }
        var timestamp: Date?
        if let day = reader.string(gps, ExifTagNumber.gpsDateStamp),
           let time = reader.rationals(gps, ExifTagNumber.gpsTimeStamp), time.count == 3,
           let midnight = ExifDateTime(exifDateTime: String(day.prefix(10)) + " 00:00:00", subSecTime: nil, offsetTime: "+00:00")?.date {
            let seconds = time[0] * 3600 + time[1] * 60 + time[2]
            if seconds.isFinite, (0..<86_401).contains(seconds) { timestamp = midnight.addingTimeInterval(seconds) }
        }
        return ExifLocation(latitude: latitude, longitude: longitude, altitude: altitude, timestamp: timestamp)
    }
}
