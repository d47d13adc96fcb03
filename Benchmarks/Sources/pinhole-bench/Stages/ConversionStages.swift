import CPeers
import Media

/// The pixel-format conversion stages.
extension Stage {
    /// `source` → `destination` at 1080p and 4K: ours (`PixelConverter`, libyuv) against
    /// libswscale in process and GStreamer's `videoconvert` through gst-launch.
    static func conversion(from source: PixelFormat, to destination: PixelFormat) -> Stage {
        let name = "\(source)→\(destination)"
        return Stage(name: name, sizes: [.hd1080, .uhd4K]) { bench, size in
            bench.progress("\(name) at \(size.name)")
            let floor = try bench.memcpyFloor(size)
            let converter = PixelConverter()
            // The realistic frame, in the source format, whose bytes every contender gets.
            let master = try converter.converted(try bench.image(size), to: source)
            let slots = bench.slots(bytesPerCall: Frames.payloadBytes(source, size) + Frames.payloadBytes(destination, size))
            let sources = try Frames.copies(of: master, count: slots)
            let destinations = try Frames.blanks(destination, like: master, count: slots)
            let sourcePlanes = sources.map(Planes.init), destinationPlanes = destinations.map(Planes.init)
            let scaler = try SwsScaler(width: size.width, height: size.height,
                                       from: FFmpeg.pixelFormat(source), to: FFmpeg.pixelFormat(destination))

            // Check once, outside the timing, that both produce the same picture.
            let ours = try Frames.blank(destination, like: master)
            try converter.convert(master, into: ours)
            let theirs = try Frames.blank(destination, like: master)
            try scaler.scale(Planes(master), into: Planes(theirs))
            let swsCheck = Check.difference(Compare.meanAbsoluteDifference(ours, theirs), against: "swscale")

            let samples = try bench.race(slots: slots, [
                { slot in try converter.convert(sources[slot], into: destinations[slot]) },
                { slot in try scaler.scale(sourcePlanes[slot], into: destinationPlanes[slot]) },
            ])
            let oursMs = samples[0].medianMs
            var rows = [Row(stage: name, size: size.name, oursMs: oursMs, memcpyMs: floor.ms,
                            peer: "FFmpeg swscale (\(scaler.flagName))", peerMs: samples[1].medianMs, check: swsCheck,
                            note: "in process, 1 thread each, \(slots) buffer sets rotated")]
            rows.append(try gstreamerRow(bench, name: name, size: size, master: master, ours: ours,
                                         destination: destination, converter: converter))
            return rows
        }
    }

    /// The row for GStreamer's `videoconvert` on `master`, or a row saying why it was not measured.
    ///
    /// gst-launch's frames are cache-warm: multifilesrc has just read the frame from the page cache
    /// and videoconvert writes into a pool that hands back the same buffer. So this row's "ours"
    /// is timed the same way, on one source and one destination used over and over.
    private static func gstreamerRow(_ bench: Bench, name: String, size: FrameSize, master: PixelBuffer, ours: PixelBuffer,
                                     destination: PixelFormat, converter: PixelConverter) throws -> Row {
        let peer = "GStreamer videoconvert"
        let warm = try Frames.blank(destination, like: master)
        let oursWarm = try bench.race(slots: 1, [{ _ in try converter.convert(master, into: warm) }])[0].medianMs
        var row = Row(stage: name, size: size.name, oursMs: oursWarm, memcpyMs: nil, peer: peer, peerMs: nil,
                      check: .none, note: "")
        guard let gstreamer = bench.gstreamer else {
            row.note = "not measured: \(GStreamer.tool) not found (scripts/setup --bench installs it)"
            return row
        }
        do {
            let file = try gstreamer.writeFrame(master, name: "\(master.format)-\(size.width)x\(size.height)")
            let output = try gstreamer.convertOnce(file: file, source: master.format, destination: destination,
                                                   width: size.width, height: size.height)
            row.check = Check.difference(Compare.meanAbsoluteDifference(ours, packed: output), against: "videoconvert")
            let timing = try gstreamer.time(file: file, source: master.format, destination: destination,
                                            width: size.width, height: size.height,
                                            frames: bench.gstreamerFrames(size), launches: bench.gstreamerLaunches)
            row.peerMs = timing.perFrameMs
            row.note = "gst-launch, per frame, pipeline overhead subtracted: median of \(timing.launches) launches × \(timing.frames) frames "
                + "minus the same without videoconvert; n-threads=1 (default); CPU \(Format.ms(timing.cpuPerFrameMs)) ms/frame; "
                + "cache-warm, so ours here is warm too (one buffer pair reused)"
        } catch {
            row.note = "not measured: \(error)"
            row.check = Check(text: "", failed: false)
        }
        return row
    }
}
