internal import CMediaLoader

/// FFmpeg, opened the first time Media needs it (a movie opened, written or remuxed): mapped at
/// start, its libraries and their dependency trees (about 150 shared objects) would be
/// relocated by every process, whether it touches a movie or not.
enum FFmpegLibrary {
    /// The table, or why FFmpeg could not be opened (tried once, on first use).
    static let library = LoadedLibrary<pinhole_ffmpeg, MediaError>("FFmpeg", load: pinhole_ffmpeg_load) {
        .unsupported("movies: FFmpeg could not be loaded (\($0))")
    }

    /// Opens FFmpeg if it is not open yet; throws when it cannot be. Every entry point of Media's
    /// movie code calls this before anything reads `ffmpeg`.
    static func require() throws(MediaError) { try library.require() }
}

/// FFmpeg's functions, for code that runs after `FFmpegLibrary.require()` succeeded.
let ffmpeg = FFmpegLibrary.library.table
