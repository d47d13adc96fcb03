import CameraModel
import Testing

/// `Localization`, the app's and the model's way to gettext.
@Suite("Translations")
struct LocalizationTests {
    /// Many translations in a row stay as cheap as the first.
    @Test("a translation costs as little after 100 000 as at the first (the installed function is not re-wrapped at each call)")
    func translationStaysCheap() {
        // The identity keeps every other test's English.
        Localization.install { $0 }
        var characters = 0
        let elapsed = ContinuousClock().measure {
            for _ in 0..<100_000 { characters += L("Camera").count }
        }
        #expect(characters == 600_000)
        // Tens of ms; a thunk chain growing at every call took minutes (or overflowed the stack).
        #expect(elapsed < .seconds(5), "100 000 translations took \(elapsed)")
    }
}
