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
Localization.install { english in String(cString: dgettext("pinhole", english)) }

MainLoopBridge.install()
let exitCode = MainActor.assumeIsolated { CameraApplication().run() }
exit(exitCode)
