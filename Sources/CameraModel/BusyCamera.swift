import Capture
import Glibc

/// Finds which program holds a camera open, by looking through /proc/*/fd as `fuser` does.
public enum BusyCamera {
    /// The name of a program (other than this one) with `device`'s node open, or nil.
    public static func holder(of device: CaptureDevice) -> String? {
        guard let path = device.path else { return nil }
        return holder(ofNode: path)
    }

    /// The name of a program (other than this one) with the file `node` open, or nil.
    public static func holder(ofNode node: String) -> String? {
        guard let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        let me = getpid()
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), pid != me else { continue }
            let fdFolder = "/proc/\(pid)/fd"
            guard let fds = opendir(fdFolder) else { continue }
            defer { closedir(fds) }
            while let fd = readdir(fds) {
                let fdName = withUnsafeBytes(of: fd.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard fdName.first?.isNumber == true else { continue }
                var target = [CChar](repeating: 0, count: 4096)
                let length = readlink(fdFolder + "/" + fdName, &target, target.count - 1)
                guard length > 0 else { continue }
                let linked = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if linked == node { return programName(pid) }
            }
        }
        return nil
    }

    /// The program's name from /proc/PID/comm.
    static func programName(_ pid: Int32) -> String? {
        guard let file = fopen("/proc/\(pid)/comm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.trimmingCharacters(in: .newlines)
    }
}

private extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let last = s.last, set.contains(last) { s = s.dropLast() }
        return String(s)
    }
}

private extension Set where Element == Character {
    static var newlines: Set<Character> { ["\n", "\r"] }
}
