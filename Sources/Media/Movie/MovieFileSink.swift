internal import CMediaLoader
import Glibc

/// The file a movie is written to, behind FFmpeg's I/O callbacks: remembers the first error
/// (ENOSPC…) so the writer can say what happened.
final class FileSink {
    /// The open file (-1 once closed).
    var fd: Int32
    /// The file's size so far (the furthest byte written).
    var written: Int64 = 0
    /// The first errno a write met (0: none); every later write fails with it.
    var error: Int32 = 0

    /// A sink writing to `fd`.
    init(fd: Int32) { self.fd = fd }

    /// FFmpeg's write callback: writes all of `size` bytes, or returns a negative errno.
    func write(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data, error == 0 else { return -(error == 0 ? EIO : error) }
        var done = 0
        while done < size {
            let n = Glibc.write(fd, data + done, size - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                error = n < 0 ? errno : ENOSPC
                return -error
            }
            done += n
        }
        let end = Int64(lseek(fd, 0, SEEK_CUR))
        if end > written { written = end }
        return Int32(size)
    }

    /// FFmpeg's seek callback (AVSEEK_SIZE asks for the file's size).
    func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 {
            var info = stat()
            return fstat(fd, &info) == 0 ? Int64(info.st_size) : -1
        }
        let result = Int64(lseek(fd, off_t(offset), whence & ~AVSEEK_FORCE))
        return result < 0 ? -Int64(errno) : result
    }
}

/// Index access to a frame's fixed-size C arrays.
extension AVFrame {
    /// data[index] (a C array, which Swift sees as a tuple).
    subscript(data index: Int) -> UnsafeMutablePointer<UInt8>? {
        get { withUnsafeBytes(of: data) { $0.load(fromByteOffset: index * 8, as: UnsafeMutablePointer<UInt8>?.self) } }
        set { withUnsafeMutableBytes(of: &data) { $0.storeBytes(of: newValue, toByteOffset: index * 8, as: UnsafeMutablePointer<UInt8>?.self) } }
    }

    /// linesize[index].
    subscript(linesize index: Int) -> Int32 {
        get { withUnsafeBytes(of: linesize) { $0.load(fromByteOffset: index * 4, as: Int32.self) } }
        set { withUnsafeMutableBytes(of: &linesize) { $0.storeBytes(of: newValue, toByteOffset: index * 4, as: Int32.self) } }
    }
}
