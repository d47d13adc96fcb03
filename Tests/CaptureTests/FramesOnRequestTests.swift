@testable import Capture
import Dispatch
import Foundation
import Media
import Synchronization
import Testing

/// Keeps every frame it is given (so their pooled buffers stay taken) until told to let go.
private final class Keeper: VideoDataOutputSampleBufferDelegate {
    let queue = DispatchQueue(label: "frames-on-request")
    private let kept = Mutex<[SampleBuffer]>([])

    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        kept.withLock { $0.append(sampleBuffer) }
    }

    /// Frames received so far (after what is queued has run).
    var count: Int {
        queue.sync {}
        return kept.withLock { $0.count }
    }

    /// Lets go of every frame kept (their buffers go back to the output's pool).
    func letGo() {
        queue.sync {}
        kept.withLock { $0.removeAll() }
    }
}

@Suite("VideoDataOutput's frames on request")
struct FramesOnRequestTests {
    let frame: RawFrame
    let context: FrameContext

    init() throws {
        frame = RawFrame(buffer: try PixelBuffer(format: .yuyv, width: 64, height: 48, rowAlignment: 64), timestampNanoseconds: 0, sequence: 0)
        context = FrameContext(configuration: StreamConfiguration(pixelFormat: .yuyv, width: 64, height: 48, frameInterval: FrameInterval(framesPerSecond: 30)),
                               device: try CaptureDevice.device(withID: "test-back"), gap: 0)
    }

    /// An output converting YUYV to BGRA for `keeper`, queueing rather than dropping late frames
    /// (the keeper's queue is waited on between frames).
    fileprivate func output(_ keeper: Keeper) -> VideoDataOutput {
        let output = VideoDataOutput()
        output.videoSettings = .init(pixelFormat: .bgra)
        output.alwaysDiscardsLateVideoFrames = false
        output.setSampleBufferDelegate(keeper, queue: keeper.queue)
        return output
    }

    func feed(_ output: VideoDataOutput, _ count: Int) {
        for _ in 0..<count { output.consume(frame, context: context) }
    }

    @Test("by default every frame is delivered and none is counted unrequested")
    func everyFrameByDefault() {
        let keeper = Keeper(), output = output(keeper)
        for _ in 0..<3 {
            feed(output, 1)
            keeper.letGo()
        }
        #expect(output.deliveredFrameCount == 3)
        #expect(output.unrequestedFrameCount == 0)
    }

    @Test("on request: the first frame comes, then one per request; requests made before a frame do not add up; the rest are counted, not converted")
    func onePerRequest() {
        let keeper = Keeper(), output = output(keeper)
        output.deliversOnRequest = true
        feed(output, 5)
        #expect(keeper.count == 1)
        #expect(output.unrequestedFrameCount == 4)
        output.requestFrame()
        output.requestFrame()
        feed(output, 3)
        #expect(keeper.count == 2)
        #expect(output.deliveredFrameCount == 2)
        #expect(output.unrequestedFrameCount == 6)
        #expect(output.droppedFrameCount == 0)
        // Turned off, every frame comes again.
        output.deliversOnRequest = false
        feed(output, 2)
        #expect(keeper.count == 4)
    }

    @Test("a request taken by a frame that is then dropped (no free buffer) is given back: the next frame comes")
    func droppedFrameGivesBackItsRequest() {
        let keeper = Keeper(), output = output(keeper)
        output.deliversOnRequest = true
        // The keeper holds every frame: the pool runs out after its size.
        for _ in 0..<VideoDataOutput.poolSize {
            feed(output, 1)
            output.requestFrame()
        }
        #expect(keeper.count == VideoDataOutput.poolSize)
        feed(output, 1)
        #expect(output.droppedFrameCount == 1)
        #expect(keeper.count == VideoDataOutput.poolSize)
        // No new request: the dropped frame's is still there once a buffer is free.
        keeper.letGo()
        feed(output, 1)
        #expect(keeper.count == 1)
        #expect(output.unrequestedFrameCount == 0)
    }

    @Test("a new stream's first frame comes without a request")
    func newStreamAsksForItsFirstFrame() throws {
        let keeper = Keeper(), output = output(keeper)
        output.deliversOnRequest = true
        feed(output, 2)
        #expect(keeper.count == 1)
        try output.streamWillStart(context.configuration, device: context.device)
        feed(output, 2)
        #expect(keeper.count == 2)
        #expect(output.unrequestedFrameCount == 2)
    }
}
