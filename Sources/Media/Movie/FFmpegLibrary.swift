internal import CMediaLoader

/// FFmpeg, opened the first time Media needs it (a movie opened, written or remuxed).
///
/// Linked at build time, FFmpeg's libraries and their dependency trees (about 150 shared
/// objects) would be mapped and relocated by every process before `main`, whether it touches a
/// movie or not. Instead `CMediaLoader` opens them with dlopen on first use and Media calls them
/// through `ffmpeg`, a table of function pointers typed by FFmpeg's own headers.
enum FFmpegLibrary {
    /// The table, or why FFmpeg could not be opened (tried once, on first use).
    static let loaded: Result<pinhole_ffmpeg, MediaError> = {
        var reason = [CChar](repeating: 0, count: 512)
        guard let table = pinhole_ffmpeg_load(&reason, reason.count)?.pointee else {
            return .failure(.unsupported("movies: FFmpeg could not be loaded (\(reason.nulTerminatedString))"))
        }
        return .success(table)
    }()

    /// Opens FFmpeg if it is not open yet; throws when it cannot be. Every entry point of Media's
    /// movie code calls this before anything reads `ffmpeg`.
    static func require() throws(MediaError) {
        if case let .failure(error) = loaded { throw error }
    }
}

/// FFmpeg's functions, for code that runs after `FFmpegLibrary.require()` succeeded (reading it
/// earlier, when FFmpeg failed to load, is a programming error and stops the process).
let ffmpeg: pinhole_ffmpeg = {
    switch FFmpegLibrary.loaded {
    case let .success(table): return table
    case let .failure(error): fatalError("FFmpeg used without FFmpegLibrary.require(): \(error)")
    }
}()
