/// The EXIF and TIFF tag numbers Pinhole reads and writes. GPS tags are numbered in their own
/// IFD, so small numbers repeat meaning only there.
enum ExifTagNumber {
    /// IFD0: camera maker (ASCII).
    static let make: UInt16 = 0x010F
    /// IFD0: camera model (ASCII).
    static let model: UInt16 = 0x0110
    /// IFD0: orientation 1–8 (SHORT).
    static let orientation: UInt16 = 0x0112
    /// IFD0: horizontal resolution (RATIONAL).
    static let xResolution: UInt16 = 0x011A
    /// IFD0: vertical resolution (RATIONAL).
    static let yResolution: UInt16 = 0x011B
    /// IFD0: resolution unit, 2 = inch (SHORT).
    static let resolutionUnit: UInt16 = 0x0128
    /// IFD0: the software that wrote the file (ASCII).
    static let software: UInt16 = 0x0131
    /// IFD0: date and time the file was last changed (ASCII).
    static let dateTime: UInt16 = 0x0132
    /// IFD1: offset of the JPEG thumbnail (LONG).
    static let thumbnailOffset: UInt16 = 0x0201
    /// IFD1: length of the JPEG thumbnail (LONG).
    static let thumbnailLength: UInt16 = 0x0202
    /// IFD0: position of chroma samples, 1 = centred (SHORT).
    static let yCbCrPositioning: UInt16 = 0x0213
    /// IFD0: pointer to the EXIF IFD (LONG).
    static let exifIFDPointer: UInt16 = 0x8769
    /// IFD0: pointer to the GPS IFD (LONG).
    static let gpsIFDPointer: UInt16 = 0x8825
    /// EXIF IFD: version, four ASCII digits (UNDEFINED).
    static let exifVersion: UInt16 = 0x9000
    /// EXIF IFD: when the photo was taken (ASCII).
    static let dateTimeOriginal: UInt16 = 0x9003
    /// EXIF IFD: when the photo was digitised (ASCII).
    static let dateTimeDigitized: UInt16 = 0x9004
    /// EXIF IFD: UTC offset of DateTime (ASCII "+HH:MM").
    static let offsetTime: UInt16 = 0x9010
    /// EXIF IFD: UTC offset of DateTimeOriginal (ASCII "+HH:MM").
    static let offsetTimeOriginal: UInt16 = 0x9011
    /// EXIF IFD: UTC offset of DateTimeDigitized (ASCII "+HH:MM").
    static let offsetTimeDigitized: UInt16 = 0x9012
    /// EXIF IFD: channel order of the compressed data, 1 2 3 0 = Y Cb Cr (UNDEFINED).
    static let componentsConfiguration: UInt16 = 0x9101
    /// EXIF IFD: fraction of a second of DateTime (ASCII digits).
    static let subSecTime: UInt16 = 0x9290
    /// EXIF IFD: fraction of a second of DateTimeOriginal (ASCII digits).
    static let subSecTimeOriginal: UInt16 = 0x9291
    /// EXIF IFD: fraction of a second of DateTimeDigitized (ASCII digits).
    static let subSecTimeDigitized: UInt16 = 0x9292
    /// EXIF IFD: FlashPix version, "0100" (UNDEFINED).
    static let flashpixVersion: UInt16 = 0xA000
    /// EXIF IFD: colour space, 1 = sRGB (SHORT).
    static let colorSpace: UInt16 = 0xA001
    /// EXIF IFD: width of the image in pixels (SHORT or LONG).
    static let pixelXDimension: UInt16 = 0xA002
    /// EXIF IFD: height of the image in pixels (SHORT or LONG).
    static let pixelYDimension: UInt16 = 0xA003
    /// EXIF IFD: pointer to the interoperability IFD (LONG).
    static let interoperabilityIFDPointer: UInt16 = 0xA005

    /// GPS IFD: version 2.3.0.0 (4 BYTEs).
    static let gpsVersionID: UInt16 = 0x0000
    /// GPS IFD: "N" or "S" (ASCII).
    static let gpsLatitudeRef: UInt16 = 0x0001
    /// GPS IFD: degrees, minutes, seconds (3 RATIONALs).
    static let gpsLatitude: UInt16 = 0x0002
    /// GPS IFD: "E" or "W" (ASCII).
    static let gpsLongitudeRef: UInt16 = 0x0003
    /// GPS IFD: degrees, minutes, seconds (3 RATIONALs).
    static let gpsLongitude: UInt16 = 0x0004
    /// GPS IFD: 0 above sea level, 1 below (BYTE).
    static let gpsAltitudeRef: UInt16 = 0x0005
    /// GPS IFD: metres (RATIONAL).
    static let gpsAltitude: UInt16 = 0x0006
    /// GPS IFD: UTC hours, minutes, seconds (3 RATIONALs).
    static let gpsTimeStamp: UInt16 = 0x0007
    /// GPS IFD: UTC date "YYYY:MM:DD" (ASCII).
    static let gpsDateStamp: UInt16 = 0x001D
}
