// swift-tools-version:6.0
// Pinhole: a camera app and a reusable Swift capture library for Linux.
// Licence: GPL-3.0-or-later.
import PackageDescription

let package = Package(
    name: "Pinhole",
    products: [
        .library(name: "Media", targets: ["Media"]),
        .executable(name: "pinhole-bench", targets: ["pinhole-bench"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages (installed by scripts/setup).
        .systemLibrary(name: "CYUV", path: "Sources/CYUV"),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg"),
        .systemLibrary(name: "CHeif", path: "Sources/CHeif", pkgConfig: "libheif"),
        .systemLibrary(name: "CExif", path: "Sources/CExif", pkgConfig: "libexif"),
        .systemLibrary(name: "CAV", path: "Sources/CAV", pkgConfig: "libavcodec"),
        // libpng reports errors with longjmp, which Swift cannot catch: a small C shim owns setjmp.
        .target(name: "CPNG", path: "Sources/CPNG", linkerSettings: [.linkedLibrary("png16")]),

        .target(name: "Media", dependencies: ["CYUV", "CTurboJPEG", "CHeif", "CExif", "CPNG"]),
        .executableTarget(name: "pinhole-bench", dependencies: ["Media", "CAV", "CYUV"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "CYUV"]),
    ]
)
