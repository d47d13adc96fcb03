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
