import CameraModel
import CGtk
import Glibc

// Pinhole's camera app: GTK 4 + libadwaita over the Capture and PhotoLibrary libraries.

// Translations: gettext from the installed locale folder (or PINHOLE_LOCALEDIR for a build tree).
setlocale(LC_ALL, "")
let localeFolder = getenv("PINHOLE_LOCALEDIR").map { String(cString: $0) } ?? Installation.localeFolder
bindtextdomain("pinhole", localeFolder)
bind_textdomain_codeset("pinhole", "UTF-8")
textdomain("pinhole")
// gettext returns the msgid's own pointer when there is no translation: read it inside the call.
Localization.install { english in
    english.withCString { msgid in
        guard let translated = dgettext("pinhole", msgid), translated != UnsafeMutablePointer(mutating: msgid) else { return english }
        return String(cString: translated)
    }
}

MainLoopBridge.install()
let exitCode = MainActor.assumeIsolated { CameraApplication().run() }
exit(exitCode)
