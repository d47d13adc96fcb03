import Foundation

/// Where a photo was taken, as the EXIF GPS IFD records it (WGS-84).
///
/// Signs carry the hemisphere; the GPS IFD stores magnitudes and reference letters, which the
/// writer and reader convert. Written to 1/10000 of an arc-second (about 3 mm) and altitude to the
/// millimetre, so values read back may differ from those written by that much.
public struct ExifLocation: Sendable, Hashable {
    /// Latitude in degrees, −90...90, north positive (GPSLatitude + GPSLatitudeRef).
    public var latitude: Double
    /// Longitude in degrees, −180...180, east positive (GPSLongitude + GPSLongitudeRef).
    public var longitude: Double
    /// Metres above sea level, negative below (GPSAltitude + GPSAltitudeRef), or nil.
    public var altitude: Double?
    /// When the fix was taken, in UTC (GPSDateStamp + GPSTimeStamp, to the millisecond), or nil.
    public var timestamp: Date?

    /// The largest altitude magnitude that can be written, in metres (a 32-bit count of millimetres).
    public static let maximumAltitude = Double(UInt32.max) / 1000

    /// Makes a location. Values are checked when encoded, not here.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil, timestamp: Date? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.timestamp = timestamp
    }

    /// Throws `.invalidMetadata` unless every value can be written.
    func validate() throws(MediaError) {
        guard latitude.isFinite, abs(latitude) <= 90 else {
            throw .invalidMetadata("latitude \(latitude)° is outside −90…90")
        }
        guard longitude.isFinite, abs(longitude) <= 180 else {
            throw .invalidMetadata("longitude \(longitude)° is outside −180…180")
        }
        if let altitude, !(altitude.isFinite && abs(altitude) <= ExifLocation.maximumAltitude) {
            throw .invalidMetadata("altitude \(altitude) m cannot be written (at most ±\(Int(ExifLocation.maximumAltitude)) m)")
        }
    }
}
