import Foundation
import Testing
import TestSupport

/// The `pinhole` command in Simplified Chinese: words for people translated, exit codes and
/// machine-readable output (paths, --json) exactly as in English.
@Suite("pinhole CLI in Simplified Chinese", .serialized)
struct TranslationTests {
    /// The source tree (for scripts/translations): $PINHOLE_REPO, else three folders above this file.
    static var repository: String {
        ProcessInfo.processInfo.environment["PINHOLE_REPO"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The source tree's translations compiled into a temporary folder, once per run.
    static let locales: Result<String, any Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinhole-cli-locale-\(getpid())").path
        let result = try runTool("bash", [repository + "/scripts/translations", "build", folder])
        guard result.status == 0 else { throw TranslationsFailed(message: result.stderr) }
        return folder
    }

    struct TranslationsFailed: Error { var message: String }

    /// `base` under LANG=zh_CN.UTF-8 with the compiled translations.
    func chinese(_ base: [String: String] = [:]) throws -> [String: String] {
        base.merging(["LANG": "zh_CN.UTF-8", "LANGUAGE": "zh_CN", "LC_ALL": "zh_CN.UTF-8", "PINHOLE_LOCALEDIR": try Self.locales.get()]) { $1 }
    }

    @Test("errors are one line in Chinese with the same exit codes as in English")
    func errors() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let zh = try chinese(env)
        let quality = try pinhole(["snap", "--quality", "0"], environment: zh)
        let qualityEnglish = try pinhole(["snap", "--quality", "0"], environment: env)
        #expect(quality.status == 2 && quality.status == qualityEnglish.status)
        #expect(quality.stderr == "pinhole: --quality 必须是 1 到 100 之间的整数，而不是“0”。参见 `pinhole --help`。\n", "\(quality.stderr)")
        let command = try pinhole(["bogus"], environment: zh)
        #expect(command.status == 2 && command.stderr == "pinhole: 未知命令“bogus”。参见 `pinhole --help`。\n", "\(command.stderr)")
        // The library's own sentence stays as it is; the command's advice after it is translated.
        let camera = try pinhole(["snap", "--device", "no-such-camera"], environment: zh)
        let cameraEnglish = try pinhole(["snap", "--device", "no-such-camera"], environment: env)
        #expect(camera.status == 3 && camera.status == cameraEnglish.status)
        #expect(camera.stderr == "pinhole: No camera 'no-such-camera'. 用 `pinhole devices` 列出相机。\n", "\(camera.stderr)")
        let missing = try pinhole(["library", "info", "nope"], environment: zh)
        #expect(missing.status == 7 && missing.stderr.hasSuffix("用 `pinhole library list` 列出照片和视频。\n"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test("--help and a command's --help are in Chinese, options as typed")
    func help() throws {
        let help = try pinhole(["--help"], environment: try chinese())
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("用法：pinhole COMMAND [选项]\n"), "\(help.stdout)")
        #expect(help.stdout.contains("  snap       拍照并输出保存位置\n"), "\(help.stdout)")
        #expect(help.stdout.contains("4 访问被拒绝") && !help.stdout.contains("access denied"), "\(help.stdout)")
        let snap = try pinhole(["snap", "--help"], environment: try chinese())
        #expect(snap.status == 0)
        #expect(snap.stdout.contains("  --timer SECONDS       拍照前等待的秒数\n"), "\(snap.stdout)")
    }

    @Test("snap prints the saved path exactly as in English; --json and library listings are the same in both languages")
    func machineReadable() throws {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        env["TZ"] = "UTC"
        let zh = try chinese(env)
        let result = try pinhole(["snap"], environment: zh)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "未找到相机：使用 Pinhole 的测试相机。\n", "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line: \(result.stdout)")
        let path = String(lines[0])
        #expect(path.hasPrefix(folder.url.path + "/Pictures/Camera/Photo from "), "\(path)")
        #expect(path.range(of: #"Photo from \d{4}-\d\d-\d\d \d\d-\d\d-\d\d\.\d{3}\.jpg$"#, options: .regularExpression) != nil, "\(path)")
        #expect(FileManager.default.fileExists(atPath: path))
        // -o: the path given, as given.
        let target = folder.path("shot.png")
        let plain = try pinhole(["snap", "--device", "test-back", "--size", "640x480", "--format", "png", "-o", target], environment: zh)
        #expect(plain.status == 0 && plain.stdout == target + "\n" && plain.stderr.isEmpty, "\(plain.stdout) \(plain.stderr)")
        for arguments in [["devices", "--json"], ["library", "list"], ["library", "list", "--json"], ["library", "albums"]] {
            let english = try pinhole(arguments, environment: env), translated = try pinhole(arguments, environment: zh)
            #expect(translated.status == english.status && translated.stdout == english.stdout, "\(arguments)")
        }
        #expect(try pinhole(["library", "list"], environment: zh).stdout.contains(path))
    }
}
