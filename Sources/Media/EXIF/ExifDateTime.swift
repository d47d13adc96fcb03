import Foundation

/// A date and time as EXIF records it: the wall-clock reading where the photo was taken
/// (DateTimeOriginal, "YYYY:MM:DD HH:MM:SS"), with optional milliseconds (SubSecTimeOriginal)
/// and an optional offset from UTC (OffsetTimeOriginal, "+HH:MM").
///
/// Kept as calendar fields rather than a `Date` so that what is written is exactly what is read
/// back; `date` converts when the offset is known.
public struct ExifDateTime: Sendable, Hashable, CustomStringConvertible {
    /// The year, 1...9999.
    public let year: Int
    /// The month, 1...12.
    public let month: Int
    /// The day of the month, 1...31 (and valid for the month and year).
    public let day: Int
    /// The hour, 0...23.
    public let hour: Int
    /// The minute, 0...59.
    public let minute: Int
    /// The second, 0...59.
    public let second: Int
    /// Milliseconds within the second, 0...999, or nil when not recorded.
    public let millisecond: Int?
    /// The wall clock's offset from UTC in seconds (a whole number of minutes, within ±18 hours;
    /// +3600 is "+01:00"), or nil when not recorded.
    public let utcOffsetSeconds: Int?

    /// The largest offset from UTC accepted, in seconds (as Foundation's `TimeZone`).
    public static let maximumUTCOffsetSeconds = 18 * 3600

    /// Makes a date and time from its fields; throws `.invalidMetadata` when a field is out of range,
    /// the day does not exist in that month, or the offset is not a whole number of minutes.
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                millisecond: Int? = nil, utcOffsetSeconds: Int? = nil) throws(MediaError) {
        guard (1...9999).contains(year) else { throw .invalidMetadata("the year \(year) is outside 1–9999") }
        guard (1...12).contains(month) else { throw .invalidMetadata("the month \(month) is outside 1–12") }
        let days = ExifDateTime.daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            throw .invalidMetadata("day \(day) does not exist in month \(month) of \(year), which has \(days) days")
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            throw .invalidMetadata("the time \(hour):\(minute):\(second) is not a valid time of day")
        }
        if let millisecond, !(0...999).contains(millisecond) {
            throw .invalidMetadata("\(millisecond) milliseconds is outside 0–999")
        }
        if let utcOffsetSeconds {
            guard utcOffsetSeconds % 60 == 0, abs(utcOffsetSeconds) <= ExifDateTime.maximumUTCOffsetSeconds else {
                throw .invalidMetadata("a UTC offset of \(utcOffsetSeconds) s is not a whole number of minutes within ±18 hours")
            }
        }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The wall-clock reading of `date` in `timeZone`, to the nearest millisecond, with the zone's
    /// offset at that instant (rounded to whole minutes, which only changes pre-1900 local mean times).
    /// Throws `.invalidMetadata` for dates outside the years 1–9999.
    public init(date: Date, timeZone: TimeZone) throws(MediaError) {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard totalMilliseconds.isFinite, abs(totalMilliseconds) < 4e14 else {
            throw .invalidMetadata("the date \(date) is outside the years 1–9999")
        }
        let milliseconds = Int64(totalMilliseconds)
        let wholeSeconds = Date(timeIntervalSince1970: TimeInterval(milliseconds.floorDivided(by: 1000)))
        let offset = Int((Double(timeZone.secondsFromGMT(for: wholeSeconds)) / 60).rounded()) * 60
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset) ?? timeZone
        let c = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: wholeSeconds)
        guard c.era == 1, let year = c.year, let month = c.month, let day = c.day,
              let hour = c.hour, let minute = c.minute, let second = c.second else {
            throw .invalidMetadata("the date \(date) is outside the years 1–9999")
        }
        try self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                      millisecond: Int(milliseconds.floorModulo(1000)), utcOffsetSeconds: offset)
    }

    /// The instant this reading denotes, or nil when the offset from UTC is unknown
    /// (then use `date(assuming:)`).
    public var date: Date? {
        guard let utcOffsetSeconds, let zone = TimeZone(secondsFromGMT: utcOffsetSeconds) else { return nil }
        return date(assuming: zone)
    }

    /// The instant this reading denotes, using the recorded offset from UTC when there is one
    /// and `timeZone` otherwise.
    public func date(assuming timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) } ?? timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let whole = calendar.date(from: components) else { return nil }
        return whole.addingTimeInterval(Double(millisecond ?? 0) / 1000)
    }

    /// The EXIF DateTime form, "YYYY:MM:DD HH:MM:SS".
    public var exifDateTime: String {
        "\(pad(year, 4)):\(pad(month, 2)):\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }

    /// The EXIF SubSecTime form: three digits of milliseconds ("045"), or nil.
    public var exifSubSecTime: String? { millisecond.map { pad($0, 3) } }

    /// The EXIF OffsetTime form, "+HH:MM" or "-HH:MM", or nil.
    public var exifOffsetTime: String? {
        guard let utcOffsetSeconds else { return nil }
        let minutes = abs(utcOffsetSeconds) / 60
        return "\(utcOffsetSeconds < 0 ? "-" : "+")\(pad(minutes / 60, 2)):\(pad(minutes % 60, 2))"
    }

    /// The reading as exiftool's composite SubSecDateTimeOriginal shows it, e.g. "2026:11:29 14:03:22.123+01:00".
    public var description: String {
        exifDateTime + (exifSubSecTime.map { "." + $0 } ?? "") + (exifOffsetTime ?? "")
    }

    /// Parses the three EXIF strings. Returns nil when `dateTime` is blank, all zeros or not in
    /// the EXIF form; a malformed sub-second or offset string reads as not recorded.
    init?(exifDateTime dateTime: String, subSecTime: String?, offsetTime: String?) {
        let d = Array(dateTime.utf8)
        guard d.count >= 19 else { return nil }
        /// The decimal number written by the ASCII digits in `range`, or nil for a non-digit.
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard (0x30...0x39).contains(d[i]) else { return nil }
                value = value * 10 + Int(d[i] - 0x30)
            }
            return value
        }
        let separators: [(Int, UInt8)] = [(4, 0x3A), (7, 0x3A), (10, 0x20), (13, 0x3A), (16, 0x3A)]
        guard separators.allSatisfy({ d[$0.0] == $0.1 }),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        guard let parsed = try? ExifDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                             millisecond: subSecTime.flatMap(ExifDateTime.milliseconds(fromSubSecTime:)),
                                             utcOffsetSeconds: offsetTime.flatMap(ExifDateTime.seconds(fromOffsetTime:))) else { return nil }
        self = parsed
    }

    /// Milliseconds from a SubSecTime string: its digits are a decimal fraction of a second
    /// ("5" is 500 ms, "05" is 50 ms, "123456" is 123 ms). Nil when empty or not all digits.
    static func milliseconds(fromSubSecTime text: String) -> Int? {
        let digits = Array(text.utf8.prefix { $0 != 0x20 })
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let firstThree = (digits.prefix(3) + Array(repeating: 0x30, count: 3)).prefix(3)
        return firstThree.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// Seconds from an OffsetTime string "+HH:MM" / "-HH:MM"; nil when blank or malformed.
    static func seconds(fromOffsetTime text: String) -> Int? {
        let o = Array(text.utf8)
        guard o.count >= 6, o[0] == 0x2B || o[0] == 0x2D, o[3] == 0x3A,
              [1, 2, 4, 5].allSatisfy({ (0x30...0x39).contains(o[$0]) }) else { return nil }
        let hours = Int(o[1] - 0x30) * 10 + Int(o[2] - 0x30)
        let minutes = Int(o[4] - 0x30) * 10 + Int(o[5] - 0x30)
        guard minutes < 60 else { return nil }
        let seconds = (hours * 60 + minutes) * 60
        guard seconds <= maximumUTCOffsetSeconds else { return nil }
        return o[0] == 0x2D ? -seconds : seconds
    }

    /// The number of days in `month` of `year` in the proleptic Gregorian calendar.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Zero-pads `value` to `width` digits.
private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

extension Int64 {
    /// Division rounding towards minus infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }

    /// The remainder matching `floorDivided(by:)`, always in 0..<divisor for a positive divisor.
    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        let r = self % divisor
        return r < 0 ? r + divisor : r
    }
}
