// swift-tools-version:6.0
// Pinhole's fuzz targets, in a package of their own (as the benchmark is): built only by
// scripts/fuzz, with libFuzzer and AddressSanitizer, never by Pinhole's `swift build`.
// Licence: GPL-3.0-or-later.
import PackageDescription

let package = Package(
    name: "PinholeFuzz",
    products: [
        .executable(name: "pinhole-fuzz", targets: ["pinhole-fuzz"]),
    ],
    dependencies: [
        .package(name: "Pinhole", path: ".."),
    ],
    targets: [
        // libFuzzer's driver entry point, declared for Swift (the library itself comes with
        // `-sanitize=fuzzer`).
        .target(name: "CFuzzer", path: "Sources/CFuzzer"),
        .executableTarget(name: "pinhole-fuzz", dependencies: [
            "CFuzzer", .product(name: "Media", package: "Pinhole"), .product(name: "PhotoLibrary", package: "Pinhole"),
            .product(name: "Capture", package: "Pinhole"),
        ], path: "Sources/pinhole-fuzz"),
    ]
)
