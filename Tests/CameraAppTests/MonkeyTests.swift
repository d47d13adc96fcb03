import Foundation
import Testing
import TestSupport

/// The monkey (`Monkey`): a seeded random run of everything a person can do to the app, then the
/// library checked. CI runs `MonkeyPlan.ciActions` actions with seed 1; `scripts/monkey` runs it
/// for as long as asked (`PINHOLE_MONKEY_SECONDS`, `PINHOLE_MONKEY_SEED`). docs/monkey.md says how.
extension MoreAppSuites {
@Suite("A monkey on the camera app, headless")
struct MonkeyTests {
    @Test("a seeded random run of keys, clicks, D-Bus actions, pickers, settings, window changes and camera faults: the app stays up without a critical warning, and every photo and video it saved or imported is in the library (or its Trash), decodes, and agrees with the index")
    func monkey() throws {
        let monkey = try Monkey(plan: .fromEnvironment())
        let figures = try monkey.run()
        if let report = ProcessInfo.processInfo.environment["PINHOLE_MONKEY_REPORT"] {
            try (figures + "\n" + monkey.failures.joined(separator: "\n") + "\n").write(toFile: report, atomically: true, encoding: .utf8)
        }
        #expect(monkey.failures.isEmpty, "\(monkey.failures.joined(separator: "\n"))\n\(figures)")
    }
}
}
