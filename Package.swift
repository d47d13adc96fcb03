// swift-tools-version:6.0
// Pinhole: a camera app and a reusable Swift capture library for Linux.
// Licence: GPL-3.0-or-later.
import PackageDescription

let package = Package(
    name: "Pinhole",
    products: [
        .library(name: "Media", targets: ["Media"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "PhotoLibrary", targets: ["PhotoLibrary"]),
        .executable(name: "pinhole", targets: ["pinhole"]),
        .executable(name: "pinhole-camera", targets: ["pinhole-camera"]),
        // The harness the tests and the benchmark share (processes, a headless display and bus),
        // as swift-nio ships NIOTestUtils: no shipping product depends on it.
        .library(name: "PinholeTestSupport", targets: ["PinholeTestSupport"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages (installed by scripts/setup).
        .systemLibrary(name: "CYUV", path: "Sources/CYUV"),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg"),
        .systemLibrary(name: "CExif", path: "Sources/CExif", pkgConfig: "libexif"),
        .systemLibrary(name: "CAV", path: "Sources/CAV", pkgConfig: "libavcodec"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebp"),
        // zlib, for PNG's compressed text chunks whose metadata Media edits (libpng links it already).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib"),
        // The app's toolkit: GTK 4 and libadwaita (GLib, GObject, GIO), plus gettext and the hooks
        // that let the GLib main loop run Swift's main actor; libcanberra for the shutter sound.
        .systemLibrary(name: "CGtk", path: "Sources/CGtk", pkgConfig: "libadwaita-1"),
        .systemLibrary(name: "CCanberra", path: "Sources/CCanberra", pkgConfig: "libcanberra"),
        // Sysprof's capture library for the app's marks (`Marks`; its reader for their test): static, linked in.
        .systemLibrary(name: "CSysprof", path: "Sources/CSysprof"),
        // gettext for the command-line tool, which must not link GTK: glibc's own (libintl.h).
        .systemLibrary(name: "CGettext", path: "Sources/CGettext"),
        // libpng reports errors with longjmp, which Swift cannot catch: a small C shim owns setjmp.
        .target(name: "CPNG", path: "Sources/CPNG", linkerSettings: [.linkedLibrary("png16")]),
        // VIDIOC_* numbers are function-like macros and ioctl is variadic: a small C shim exposes both.
        .target(name: "CV4L2", path: "Sources/CV4L2"),
        // iio-sensor-proxy's accelerometer over sd-bus (libsystemd), for RotationCoordinator.
        .target(name: "CSensorProxy", path: "Sources/CSensorProxy", linkerSettings: [.linkedLibrary("systemd")]),
        // FFmpeg and libheif for Media, opened with dlopen on first use (not linked: their dependency
        // trees would be loaded by every process at start); CAV links FFmpeg for the tests.
        .target(name: "CMediaLoader", path: "Sources/CMediaLoader"),
        // libpulse (PulseAudio's and PipeWire's sound servers) for Capture's microphones, opened
        // with dlopen on first use likewise: only a recording with sound or a microphone list needs it.
        .target(name: "CPulse", path: "Sources/CPulse"),
        // libpipewire for PipeWire cameras, opened with dlopen likewise: only a look for PipeWire
        // cameras needs it. The shim holds SPA's POD macros and PipeWire's inline proxy methods;
        // its .c reads their headers (libpipewire-0.3-dev, libspa-0.2-dev) through links in
        // `system/` (a header search path inside the package, not an unsafe flag), its public
        // header none.
        .target(name: "CPipeWire", path: "Sources/CPipeWire", cSettings: [.headerSearchPath("system")]),
        // The desktop's camera portal (xdg-desktop-portal's org.freedesktop.portal.Camera) over sd-bus:
        // libsystemd is linked for CSensorProxy already, so the portal loads nothing more.
        .target(name: "CCameraPortal", path: "Sources/CCameraPortal", linkerSettings: [.linkedLibrary("systemd")]),

        // Media's per-pixel loops (range expansion, the alpha check, the synthetic picture), in C:
        // a debug build does not optimise Swift, and a package used as a dependency may not ask
        // for it (SwiftPM refuses unsafeFlags there), but unoptimised C runs these quickly enough.
        .target(name: "CPixels", path: "Sources/CPixels"),

        // No unsafe flags in the libraries' targets: SwiftPM refuses them in a versioned dependency.
        .target(name: "Media", dependencies: ["CYUV", "CTurboJPEG", "CExif", "CPNG", "CWebP", "CZlib", "CMediaLoader", "CPixels"]),
        .target(name: "Capture", dependencies: ["Media", "CV4L2", "CSensorProxy", "CPulse", "CPipeWire", "CCameraPortal"]),
        .target(name: "PhotoLibrary", dependencies: ["Media", "CSQLite"]),
        .executableTarget(name: "pinhole", dependencies: ["Capture", "Media", "PhotoLibrary", "CGettext"]),
        // The camera app: a GTK-free model (unit-tested without a display) and the GTK views over it.
        .target(name: "CameraModel", dependencies: ["Capture", "Media", "PhotoLibrary", "CSysprof"]),
        .executableTarget(name: "pinhole-camera", dependencies: ["CameraModel", "Capture", "Media", "PhotoLibrary", "CGtk", "CCanberra"]),
        // The benchmark, pinhole-bench, is a package of its own (Benchmarks/), which uses these
        // libraries as any dependent package does: `swift build` here neither builds it nor links FFmpeg.
        // The harness the tests and the benchmark (Benchmarks/) share: starting, watching and
        // stopping programs (`ChildProcess`, the one posix_spawn), and a headless display and
        // session bus with the app's folders and settings (`HeadlessSession`). Glibc only.
        .target(name: "PinholeTestSupport"),
        // Helpers the test targets share, over PinholeTestSupport: running independent tools
        // (exiftool, pngcheck, …) as test failures, temporary folders, stand-in services.
        .target(name: "TestSupport", dependencies: ["PinholeTestSupport"], path: "Tests/TestSupport"),
        .testTarget(name: "MediaTests", dependencies: ["Media", "CYUV", "CAV", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Media", "TestSupport", "PinholeTestSupport"]),
        .testTarget(name: "PinholeCLITests", dependencies: ["pinhole", "Media", "TestSupport", "PinholeTestSupport"]),
        .testTarget(name: "PhotoLibraryTests", dependencies: ["PhotoLibrary", "Media", "TestSupport"]),
        .testTarget(name: "CameraAppTests", dependencies: ["CameraModel", "Capture", "Media", "PhotoLibrary", "CSysprof", "TestSupport", "PinholeTestSupport"]),
    ]
)
