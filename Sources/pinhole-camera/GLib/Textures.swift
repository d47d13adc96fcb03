import CGtk
import Media

/// A GdkTexture showing a BGRA or BGR24 `buffer` without copying it: the buffer's memory is lent
/// to GTK and the buffer (a pooled one goes back to its pool) is released when GTK drops the
/// texture. The caller owns the returned reference.
///
/// Opaque pictures are best lent as BGR24: GTK 4.8's cairo renderer converts every texture to
/// cairo's layout each time it draws it, and its converter is a per-pixel float path for 32-bit
/// BGRA (even though that is cairo's own layout) but a fast one for 24-bit BGR: a 960×540 frame
/// costs about a millisecond instead of five to eight.
func lendTexture(_ buffer: PixelBuffer) -> OpaquePointer? {
    precondition(buffer.format == .bgra || buffer.format == .bgr24, "textures are lent from BGRA or BGR24 buffers")
    let stride = Int(buffer.bytesPerRow(ofPlane: 0))
    let bytes = g_bytes_new_with_free_func(buffer.baseAddress(ofPlane: 0), gsize(stride * buffer.height), { data in
        Unmanaged<PixelBuffer>.fromOpaque(data!).release()
    }, Unmanaged.passRetained(buffer).toOpaque())
    defer { g_bytes_unref(bytes) }
    let format = buffer.format == .bgr24 ? GDK_MEMORY_B8G8R8 : GDK_MEMORY_B8G8R8A8_PREMULTIPLIED
    return gdk_memory_texture_new(Int32(buffer.width), Int32(buffer.height), format, bytes, gsize(stride))
}

/// A GdkTexture made on another thread (textures are immutable, and GTK's texture loading is
/// thread-safe), handed to the main one.
struct TextureBox: @unchecked Sendable {
    let texture: OpaquePointer?
}

/// The photo (or a movie's first frame, or a thumbnail file) at `path`, upright, its longest
/// side at most `longestSide`, decoded by Media on a worker thread into a texture the caller
/// owns, in the layout GTK draws fastest (`PixelBuffer.forDisplay`); nil when the file cannot be read.
@MainActor
func decodedTexture(ofFile path: String, longestSide: Int) async -> OpaquePointer? {
    await Task.detached { () -> TextureBox in
        guard let image = try? Thumbnailer().thumbnail(ofFile: path, longestSide: longestSide).forDisplay() else { return TextureBox(texture: nil) }
        return TextureBox(texture: lendTexture(image))
    }.value.texture
}
