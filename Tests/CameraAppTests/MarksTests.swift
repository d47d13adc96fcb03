import CameraModel
import CSysprof
import Foundation
import Glibc
import Testing
import TestSupport

/// The app's marks as `pinhole-bench` reads them: the line of each event (its parser reads these,
/// from older app binaries too), and which sinks an environment turns on.
@Suite("The app's marks")
struct MarksTests {
    @Test("each mark's line is \"pinhole-bench: EVENT VALUES\": the time first, the preview's counts without one, a gallery frame from its start to its end")
    func benchLines() {
        let counts = Mark.PreviewCounts(drawn: 12, replaced: 3, fromCamera: 20, dropped: 5)
        let lines: [(Mark, String)] = [
            (.firstFrame, "first-frame 77"), (.previewResumed, "preview-resumed 77"), (.previewCleared, "preview-cleared 77"), (.windowCloseRequest, "window-close-request 77"),
            (.previewStart(counts), "preview-start 12 3 20 5"), (.preview(counts), "preview 12 3 20 5"),
            (.photoSaved, "photo-saved 77"), (.videoSaved, "video-saved 77"), (.galleryOpen, "gallery-open 77"),
            (.gallerySplice(inserted: 4, removed: 1), "gallery-splice 77 4 1"),
            (.galleryFrame(start: 70, top: 120.4, height: 9000.6, viewport: 650, firstVisible: 8), "gallery-frame 70 77 120 9001 650 8"),
            (.galleryFrame(start: 70, top: 0, height: 0, viewport: 650, firstVisible: nil), "gallery-frame 70 77 0 0 650 -1"),
            (.galleryDrawn(cells: 30), "gallery-drawn 77 30"), (.galleryItemShown, "gallery-item-shown 77"),
            (.galleryItemThumbnail, "gallery-item-thumbnail 77"), (.viewerOpen, "viewer-open 77"),
            (.viewerDecoded(longest: 3840), "viewer-decoded 77 3840"), (.viewerDrawn, "viewer-drawn 77"), (.viewerSettled, "viewer-settled 77"),
        ]
        for (mark, expected) in lines {
            #expect(mark.benchLine(at: 77) == "pinhole-bench: " + expected + "\n")
        }
    }

    @Test("PINHOLE_BENCH_REPORT=1 turns the benchmark's lines on, a Sysprof profiler's SYSPROF_CONTROL_FD its timeline; nothing else does")
    func sinks() {
        func sinks(_ environment: [String: String]) -> Marks.Sinks { Marks.Sinks { environment[$0] } }
        #expect(sinks([:]).isEmpty)
        #expect(sinks(["PINHOLE_BENCH_REPORT": "0", "SYSPROF_CONTROL_FD": ""]).isEmpty)
        #expect(sinks(["PINHOLE_BENCH_REPORT": "1"]) == .benchLines)
        #expect(sinks(["SYSPROF_CONTROL_FD": "7"]) == .sysprof)
        #expect(sinks(["PINHOLE_BENCH_REPORT": "1", "SYSPROF_CONTROL_FD": "7"]) == [.benchLines, .sysprof])
    }
}

extension MoreAppSuites {
@Suite("The camera app's marks, headless")
struct MarksAppTests {
    /// Now on CLOCK_MONOTONIC in nanoseconds, the marks' clock (shared by every process).
    static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The app's mark lines so far: each event with its values, in the order written.
    static func marks(_ session: AppSession) -> [(event: String, values: [Int64])] { marks(errors: session.app?.errors ?? "") }

    /// The mark lines of an app's standard error: each event with its values, in the order written.
    static func marks(errors: String) -> [(event: String, values: [Int64])] {
        errors.split(separator: "\n").filter { $0.hasPrefix("pinhole-bench: ") }.map { line in
            let words = line.split(separator: " ").dropFirst()
            return (String(words.first ?? ""), words.dropFirst().compactMap { Int64($0) })
        }
    }

    @Test("with PINHOLE_BENCH_REPORT=1, launching, taking a photo and opening the gallery write first-frame, photo-saved, gallery-open and gallery-drawn in order, at times between launch and now; quitting writes the preview's counts")
    func benchmarkLines() throws {
        let session = try AppSession(extra: ["PINHOLE_BENCH_REPORT": "1"])
        let launched = Self.now
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.action("take-photo")
        #expect(waitFor(seconds: 30) { Self.marks(session).contains { $0.event == "photo-saved" } }, "no photo-saved: \(session.app?.errors ?? "")")
        try session.key("ctrl+g")
        #expect(waitFor(seconds: 30) { Self.marks(session).contains { $0.event == "gallery-drawn" } }, "no gallery-drawn: \(session.app?.errors ?? "")")
        let shown = Self.now
        let marks = Self.marks(session)
        let order = ["first-frame", "photo-saved", "gallery-open", "gallery-drawn"]
        let times = order.compactMap { event in marks.first { $0.event == event }?.values.first }
        try #require(times.count == order.count, "marks: \(marks)")
        #expect(times == times.sorted() && times.first! > launched && times.last! < shown, "launched at \(launched), \(order) at \(times), shown at \(shown)")
        // The preview's counts when it first painted: at least that frame, drawn from the camera.
        let start = try #require(marks.first { $0.event == "preview-start" }?.values, "marks: \(marks)")
        #expect(start.count == 4 && start[0] >= 1 && start[2] >= start[0], "preview-start \(start)")
        // One photo: the gallery's first screen is its one cell; its grid took it in one splice.
        #expect(marks.first { $0.event == "gallery-drawn" }?.values.dropFirst().first == 1, "marks: \(marks)")
        #expect(marks.contains { $0.event == "gallery-splice" && $0.values.dropFirst() == [1, 0] }, "marks: \(marks)")
        let frames = marks.filter { $0.event == "gallery-frame" }
        #expect(!frames.isEmpty && frames.allSatisfy { $0.values.count == 6 && $0.values[0] <= $0.values[1] }, "gallery frames: \(frames)")
        // Quitting: the preview's counts for the window's whole life, no fewer than at its start.
        let app = try #require(session.app)
        #expect(try session.quit() == 0)
        let last = Self.marks(errors: app.errors).last { $0.event == "preview" }?.values ?? []
        #expect(last.count == 4 && last[0] >= start[0] && last[2] >= start[2], "preview at start \(start), at quit \(last)")
    }

    /// The marks of group "pinhole" in a Sysprof capture file: each one's name, time and message.
    static func sysprofMarks(_ path: String) -> [(name: String, time: Int64, message: String)] {
        guard let reader = sysprof_capture_reader_new(path) else { return [] }
        defer { sysprof_capture_reader_unref(reader) }
        var marks: [(name: String, time: Int64, message: String)] = []
        var type = SysprofCaptureFrameType(0)
        while sysprof_capture_reader_peek_type(reader, &type) {
            if type == SYSPROF_CAPTURE_FRAME_MARK {
                guard let mark = sysprof_capture_reader_read_mark(reader) else { break }
                if String(cString: pinhole_sysprof_mark_group(mark)) == "pinhole" {
                    marks.append((String(cString: pinhole_sysprof_mark_name(mark)), mark.pointee.frame.time, String(cString: pinhole_sysprof_mark_message(mark))))
                }
            } else if !sysprof_capture_reader_skip(reader) {
                break
            }
        }
        return marks
    }

    /// Whether the process `pid` has children now.
    static func hasChildren(_ pid: pid_t) -> Bool {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return !children.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    @Test("started by sysprof-cli, the app puts the same marks on Sysprof's timeline (group pinhole) as on its benchmark lines, at the same times")
    func sysprofTimeline() throws {
        let session = try AppSession(extra: ["PINHOLE_BENCH_REPORT": "1"])
        try AppSuites.GalleryTests.snap(session)
        let capture = session.folder.path("app.syscap")
        // Only what the app marks: no stack samples (perf), no machine statistics, no symbols.
        try session.launch(under: ["/usr/bin/sysprof-cli", "--no-perf", "--no-decode", "--no-battery", "--no-cpu", "--no-disk", "--no-memory",
                                   "--no-network", "-f", capture, "--"])
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(waitFor(seconds: 30) { Self.marks(session).contains { $0.event == "gallery-drawn" } }, "no gallery-drawn: \(session.app?.errors ?? "")")
        let profiler = try #require(session.app)
        try session.key("ctrl+q")
        #expect(waitFor(seconds: 30) { !Self.hasChildren(profiler.pid) }, "the app did not quit")
        // Sysprof 3.46 records until told to stop; without a system bus (sysprofd) it stops only
        // at the third SIGINT, writing the capture then.
        for _ in 0..<3 where !profiler.hasExited {
            kill(profiler.pid, SIGINT)
            _ = waitFor(seconds: 5) { profiler.hasExited }
        }
        #expect(profiler.hasExited, "sysprof-cli did not stop: \(profiler.errors)")
        let lines = Self.marks(errors: profiler.errors)
        let timeline = Self.sysprofMarks(capture)
        for event in ["first-frame", "gallery-open", "gallery-splice", "gallery-drawn"] {
            let line = lines.first { $0.event == event }
            #expect(line != nil && timeline.contains { $0.name == event && $0.time == line?.values.first }, "\(event): line \(String(describing: line)), timeline \(timeline.map(\.name))")
        }
        let splice = timeline.first { $0.name == "gallery-splice" }?.message ?? ""
        #expect(splice.hasSuffix("inserted=1 removed=0"), "gallery-splice: \(splice)")
    }
}
}
