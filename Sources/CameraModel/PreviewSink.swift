import Capture
import Dispatch
import Media
import Synchronization

/// Receives the preview's frames on a queue of its own, applies the live filter in place (the
/// frame is the preview's own pooled copy) and leaves the newest one in the mailbox.
final class PreviewSink: VideoDataOutputSampleBufferDelegate {
    let mailbox: FrameMailbox
    let queue = DispatchQueue(label: "pinhole.camera.preview")
    private let filter = Lock<ImageFilter?>(nil)
    private let received = Atomic<Int>(0)

    init(mailbox: FrameMailbox) { self.mailbox = mailbox }

    /// Sets the live filter (nil: none).
    func setFilter(_ kind: LiveFilter) {
        filter.withLock { $0 = kind.imageFilter }
    }

    /// The format the preview asks the camera's side for: 24-bit BGR, which GTK draws fastest (see
    /// `lendTexture`), or BGRA while a live filter runs (filters work on 32-bit pixels).
    static func pixelFormat(for filter: LiveFilter) -> PixelFormat { filter == .none ? .bgr24 : .bgra }

    /// Frames that arrived from the camera so far.
    var frameCount: Int { received.load(ordering: .relaxed) }

    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        received.add(1, ordering: .relaxed)
        // A frame converted before the filter was chosen (BGR24) goes as it is: the next one is BGRA.
        if let filter = filter.withLock({ $0 }), sampleBuffer.imageBuffer.format == .bgra { try? filter.apply(to: sampleBuffer.imageBuffer) }
        mailbox.put(sampleBuffer.imageBuffer)
    }
}

extension LiveFilter {
    /// Media's filter for this choice (nil for none).
    var imageFilter: ImageFilter? {
        switch self {
        case .none: nil
        case .mono: try? ImageFilter(.mono)
        case .noir: try? ImageFilter(.noir)
        case .sepia: try? ImageFilter(.sepia)
        case .invert: try? ImageFilter(.invert)
        }
    }
}
