import Glibc
import Media
import PinholeTestSupport

/// PNG encoding and thumbnail stages.
extension Stage {
    /// PNG encoding of a 1080p RGB frame: ours with `.fast` (zlib level 1, SUB filter) against
    /// libpng's defaults (the same library, as most tools call it) in process, and ImageMagick's
    /// `convert` from a raw frame (whole process, start-up included).
    static var pngEncode: Stage {
        Stage(name: "PNG encode", sizes: [.hd1080]) { bench, size in
            bench.progress("PNG encode at \(size.name)")
            let rgb = try PixelConverter().converted(try bench.image(size), to: .rgb24)
            let fast = try PNGCodec.encode(rgb, compression: .fast)
            let balanced = try PNGCodec.encode(rgb, compression: .balanced)
            // Both decode back to the same pixels (lossless).
            let check: Check = try PNGCodec.decode(fast, to: .rgb24).packedBytes() == rgb.packedBytes()
                && PNGCodec.decode(balanced, to: .rgb24).packedBytes() == rgb.packedBytes()
                ? Check(text: "lossless", failed: false) : Check(text: "pixels differ FAILED", failed: true)
            let samples = try bench.race(slots: 1, runs: max(5, bench.runs / 3), [
                { _ in _ = try PNGCodec.encode(rgb, compression: .fast) },
                { _ in _ = try PNGCodec.encode(rgb, compression: .balanced) },
            ])
            var rows = [Row(stage: "PNG encode (RGB)", size: size.name, oursMs: samples[0].medianMs, memcpyMs: nil,
                            peer: "libpng defaults (zlib 6, adaptive filters), in process", peerMs: samples[1].medianMs, check: check,
                            note: "ours: zlib level 1 + SUB filter, \(Format.bytes(fast.count)); defaults \(Format.bytes(balanced.count))")]
            if Subprocess.find("convert") != nil {
                let raw = bench.scratch + "/frame.rgb"
                _ = try AtomicFile.write(rgb.packedBytes(), to: raw)
                var times: [Double] = []
                var failure: String?
                for index in 0..<max(3, bench.runs / 3) {
                    let out = bench.scratch + "/magick-\(index).png"
                    let result = Subprocess.run(["convert", "-size", "\(size.width)x\(size.height)", "-depth", "8", "rgb:" + raw, out], scratch: bench.scratch)
                    if result.status != 0 { failure = result.errors; break }
                    times.append(result.wallSeconds * 1000)
                    unlink(out)
                }
                rows.append(Row(stage: "PNG encode (RGB)", size: size.name, oursMs: samples[0].medianMs, memcpyMs: nil,
                                peer: "ImageMagick convert rgb:→png, whole process", peerMs: failure == nil ? Sample.median(times) : nil,
                                check: failure == nil ? .none : Check(text: "convert failed: \(failure!.prefix(60))", failed: true),
                                note: "start-up and reading the raw file included, as a script would run it"))
            }
            return rows
        }
    }

    /// A 12 MP JPEG to a 256 px PNG thumbnail: ours in process (read the file, DCT-scaled decode,
    /// box filter, PNG, durable write) against vipsthumbnail and ImageMagick, whole process, and
    /// vipsthumbnail on a batch of files in one process (its start-up shared).
    static var thumbnail: Stage {
        Stage(name: "thumbnail 256 px", sizes: [.mp12]) { bench, size in
            bench.progress("thumbnails of a \(size.name) JPEG")
            let jpeg = try JPEGEncoder().encode(try bench.image(size), quality: 90)
            let batch = 8
            let inputs = (0..<batch).map { bench.scratch + "/photo-\($0).jpg" }
            for path in inputs { _ = try AtomicFile.write(jpeg, to: path) }
            let thumbnailer = Thumbnailer()
            var written = 0
            func ours(_ slot: Int) throws {
                let image = try thumbnailer.thumbnail(ofFile: inputs[slot % batch], longestSide: 256)
                let png = try PNGCodec.encode(image, compression: .fast)
                let path = try AtomicFile.write(png, to: bench.scratch + "/ours-\(written).png")
                written += 1
                unlink(path)
            }
            let reference = try PixelTransform.scaled(try bench.image(size), width: 256, height: 192, filter: .box)
            let ourThumbnail = try thumbnailer.thumbnail(of: jpeg, longestSide: 256)
            let ourCheck = Check.difference(ourThumbnail.width == 256 ? Compare.meanAbsoluteDifference(ourThumbnail, reference) : nil, against: "box-filtered original")
            let samples = try bench.race(slots: batch, [{ slot in try ours(slot) }])
            let oursMs = samples[0].medianMs
            var rows: [Row] = []
            let runs = max(3, bench.runs / 3)
            let vips = ThumbnailTool.vips, magick = ThumbnailTool.magick
            if vips.installed {
                let single = vips.time(runs: runs, input: { inputs[$0 % batch] }, output: { bench.scratch + "/vips-\($0).png" },
                                       reference: reference, scratch: bench.scratch)
                rows.append(Row(stage: "JPEG 12 MP → 256 px PNG", size: size.name, oursMs: oursMs, memcpyMs: nil,
                                peer: "vipsthumbnail, one file, whole process", peerMs: single.ms, check: ourCheck,
                                note: "ours in process: file read, 1/8 DCT-scaled decode, box filter, PNG, fsynced write; vips \(single.check.text)"))
                var perImage: [Double] = []
                for round in 0..<runs {
                    let result = Subprocess.run(["vipsthumbnail"] + inputs + ["-s", "256", "-o", bench.scratch + "/batch\(round)-%s.png"], scratch: bench.scratch)
                    if result.status == 0 { perImage.append(result.wallSeconds * 1000 / Double(batch)) }
                    for index in 0..<batch { unlink(bench.scratch + "/batch\(round)-photo-\(index).png") }
                }
                rows.append(Row(stage: "JPEG 12 MP → 256 px PNG", size: size.name, oursMs: oursMs, memcpyMs: nil,
                                peer: "vipsthumbnail, \(batch) files in one process, per image", peerMs: perImage.isEmpty ? nil : Sample.median(perImage),
                                check: .none, note: "its start-up shared by the batch"))
            }
            if magick.installed {
                let result = magick.time(runs: runs, input: { inputs[$0 % batch] }, output: { bench.scratch + "/magick-\($0).png" },
                                         reference: reference, scratch: bench.scratch)
                rows.append(Row(stage: "JPEG 12 MP → 256 px PNG", size: size.name, oursMs: oursMs, memcpyMs: nil,
                                peer: "ImageMagick convert -thumbnail (jpeg:size hint), whole process", peerMs: result.ms, check: result.check,
                                note: "the jpeg:size hint lets libjpeg scale in the DCT, as ours does"))
            }
            for path in inputs { unlink(path) }
            return rows
        }
    }
}
