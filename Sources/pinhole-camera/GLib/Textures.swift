import CGtk
import Media

/// A GdkTexture showing a BGRA `buffer` without copying it: the buffer's memory is lent to GTK
/// and the buffer (a pooled one goes back to its pool) is released when GTK drops the texture.
/// The caller owns the returned reference.
func lendTexture(_ buffer: PixelBuffer) -> OpaquePointer? {
    precondition(buffer.format == .bgra, "textures are lent from BGRA buffers")
    let stride = Int(buffer.bytesPerRow(ofPlane: 0))
    let bytes = g_bytes_new_with_free_func(buffer.baseAddress(ofPlane: 0), gsize(stride * buffer.height), { data in
        Unmanaged<PixelBuffer>.fromOpaque(data!).release()
    }, Unmanaged.passRetained(buffer).toOpaque())
    defer { g_bytes_unref(bytes) }
    return gdk_memory_texture_new(Int32(buffer.width), Int32(buffer.height), GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, bytes, gsize(stride))
}

/// A GdkTexture made on another thread (textures are immutable, and GTK's texture loading is
/// thread-safe), handed to the main one.
struct TextureBox: @unchecked Sendable {
    let texture: OpaquePointer?
}

/// The photo (or a movie's first frame) at `path`, upright, its longest side at most
/// `longestSide`, decoded by Media on a worker thread into a texture the caller owns; nil when
/// the file cannot be read.
@MainActor
func decodedTexture(ofFile path: String, longestSide: Int) async -> OpaquePointer? {
    await Task.detached { () -> TextureBox in
        guard let image = try? Thumbnailer().thumbnail(ofFile: path, longestSide: longestSide) else { return TextureBox(texture: nil) }
        return TextureBox(texture: lendTexture(image))
    }.value.texture
}
