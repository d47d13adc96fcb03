internal import CMediaLoader
import Glibc

/// FFmpeg's log while Media works with it, without touching the process's log settings.
///
/// FFmpeg prints warnings and errors on stderr by default, and the CLI promises one line per
/// failure; but the log level is the process's, and a program using FFmpeg itself (the bench,
/// an app with a player) must keep its own. So one callback is installed, once: what FFmpeg
/// logs on a thread while Media's movie code runs there (between `enter()` and `leave()`) is
/// not printed, and its last error line is kept for Media's error messages; everything else
/// goes to FFmpeg's default logger, at whatever level the process chose (`ffmpeg.av_log_get_level()` is
/// never changed). Messages that FFmpeg's own worker threads log for Media's contexts are
/// not on a Media thread and follow the process's level. A program that installs a callback of
/// its own after Media's takes the whole log over; Media's errors then lack FFmpeg's line.
enum FFmpegLog {
    /// A thread's state: how deeply Media's FFmpeg calls nest, and the last error logged.
    private final class Scope {
        var depth = 0
        var lastError: String?
    }

    /// The thread-specific `Scope` (a retained object, released when its thread ends).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Scope>.fromOpaque(pointer).release() }
        }
        return key
    }()

    /// Installs the callback (once, after the key exists: the callback reads it). What FFmpeg
    /// calls for every message: kept when Media is at work on this thread, else handed to
    /// FFmpeg's default logger. (Written in place: va_list reaches Swift as FFmpeg declares it,
    /// which a spelled-out Swift function type cannot name.)
    private static let installed: Void = {
        _ = key
        ffmpeg.av_log_set_callback { context, level, format, arguments in
            guard let arguments else { return }
            guard let pointer = pthread_getspecific(FFmpegLog.key),
                  case let scope = Unmanaged<Scope>.fromOpaque(pointer).takeUnretainedValue(), scope.depth > 0 else {
                ffmpeg.av_log_default_callback(context, level, format, arguments)
                return
            }
            guard level <= AV_LOG_ERROR, let format else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            _ = vsnprintf(&buffer, buffer.count, format, arguments)
            let line = buffer.nulTerminatedString.trimmingWhitespace
            if !line.isEmpty { scope.lastError = line }
        }
    }()

    /// This thread's scope, made on first use.
    private static var scope: Scope {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Scope>.fromOpaque(pointer).takeUnretainedValue() }
        let scope = Scope()
        pthread_setspecific(key, Unmanaged.passRetained(scope).toOpaque())
        return scope
    }

    /// Marks the start of Media's FFmpeg work on this thread (nests; pair with `leave()`). The
    /// outermost one forgets the previous error line.
    static func enter() {
        _ = installed
        let scope = scope
        if scope.depth == 0 { scope.lastError = nil }
        scope.depth += 1
    }

    /// Marks the end of what `enter()` began.
    static func leave() {
        let scope = scope
        scope.depth = max(0, scope.depth - 1)
    }

    /// The last error line FFmpeg logged on this thread during Media's current (or latest) work.
    static var lastError: String? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Scope>.fromOpaque(pointer).takeUnretainedValue().lastError
    }
}

private extension String {
    /// The text without leading or trailing spaces and newlines (FFmpeg's lines end in "\n").
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }
}
