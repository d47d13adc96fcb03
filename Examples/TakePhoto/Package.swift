// swift-tools-version:6.0
// An example of a package that uses Pinhole's libraries as another project would: through a
// versioned git dependency, with no access to anything inside Pinhole's own package.
// Licence: GPL-3.0-or-later.
import PackageDescription

// Pinhole's git repository. A project writes Pinhole's URL here. This example is built by
// `check` (scripts/test runs it), which copies the working tree into a temporary bare repository,
// tags it with the release version and passes its file:// URL in PINHOLE_GIT_URL; without the
// variable, resolving fails with a path that says so.
let pinholeURL = Context.environment["PINHOLE_GIT_URL"] ?? "file:///set-PINHOLE_GIT_URL-or-run-Examples-TakePhoto-check/pinhole.git"

let package = Package(
    name: "TakePhoto",
    dependencies: [
        .package(url: pinholeURL, from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "take-photo", dependencies: [
            .product(name: "Capture", package: "pinhole"),
            .product(name: "Media", package: "pinhole"),
        ]),
    ]
)
