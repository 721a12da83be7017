import Foundation
import MotionProtocol
@testable import TestSupport
import Testing

/// What people expect of Linux commands, run as they would run them: `--version` on every
/// installed command (one version, ``MotionVersion``, also what the daemon says it is), a
/// `motionctl --help` with only what users run, and a CHANGELOG whose newest entry is this
/// version.
@Suite("Command conventions: versions, help, changelog")
struct CommandConventionsTests {
    @Test("--version: motiond, motionctl and motiond-rotate (the motionctl binary through its link) print the one version")
    func versions() async throws {
        for command in [Emulation.motiond, MotionCtlTests.motionctl, Compositors.motiondRotate] {
            let output = try await Emulation.run([command, "--version"])
            #expect(output.status == 0 && output.stdout == MotionVersion.current + "\n", "\(command): \(output.stdout) \(output.stderr)")
        }
        #expect(MotionVersion.current.split(separator: ".").count == 3 && MotionVersion.current.allSatisfy { $0.isNumber || $0 == "." })
    }

    @Test("motionctl --help lists what users run and no benchmark; the link runs motiond-rotate, not motionctl")
    func help() async throws {
        let help = try await Emulation.run([MotionCtlTests.motionctl, "--help"])
        #expect(help.status == 0)
        for command in ["monitor", "get", "status", "record", "calibrate", "fuse", "analyze", "plot"] {
            #expect(help.stdout.contains("  \(command) "), "no \(command) in:\n\(help.stdout)")
        }
        for benchmark in ["accuracy", "bench", "orientation-bench", "hinge-bench", "daemon-bench", "client-bench"] {
            #expect(!help.stdout.contains("  \(benchmark) "), "\(benchmark) in:\n\(help.stdout)")
        }
        let rotate = try await Emulation.run([Compositors.motiondRotate, "--help"])
        #expect(rotate.status == 0 && rotate.stdout.contains("USAGE: motiond-rotate [--socket") && !rotate.stdout.contains("SUBCOMMANDS"), "\(rotate.stdout)")
        let bench = URL(fileURLWithPath: Emulation.motiond).deletingLastPathComponent().appendingPathComponent("motiond-bench").path
        let benchHelp = try await Emulation.run([bench, "--help"])
        #expect(benchHelp.status == 0 && benchHelp.stdout.contains("  daemon-bench "), "\(benchHelp.stdout)")
    }

    @Test("motionctl (and so motiond-rotate) links FoundationEssentials, not Foundation: no ICU's 36 MB in the client binary")
    func clientWithoutInternationalization() async throws {
        // Debug builds link the Swift libraries dynamically, so what the binary needs is named
        // in its dynamic section (the release build links the same modules statically).
        let dynamic = try await Emulation.run(["readelf", "--dynamic", MotionCtlTests.motionctl])
        #expect(dynamic.status == 0, "\(dynamic.stderr)")
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("[libFoundationEssentials.so]") }, "\(needed)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!needed.contains { $0.contains("[\(library)]") }, "motionctl needs \(library)")
        }
    }

    @Test("the daemon says its version in the hello and in status; motionctl status shows it")
    func daemonVersion() async throws {
        let daemon = try ServedDaemon(["--source", "sim:", "--no-config"])
        defer { _ = daemon.stop() }
        let client = try await daemon.connect()
        let other = try await SocketClient(path: daemon.socket)
        let hello = try await other.hello()
        #expect(hello?["daemon"] as? String == "motiond \(MotionVersion.current)", "\(String(describing: hello))")
        try await client.send(#"{"op":"status","id":1}"#)
        let status = try await client.reply(1)?["status"] as? [String: Any]
        #expect(status?["daemon"] as? String == "motiond \(MotionVersion.current)")
        let text = try await Emulation.run([MotionCtlTests.motionctl, "status", "--socket", daemon.socket])
        #expect(text.stdout.contains("daemon         \(daemon.socket) (motiond \(MotionVersion.current))"), "\(text.stdout)")
    }

    @Test("CHANGELOG.md's newest entry is this version, and the Debian package is named after it, Debian revision 1 (scripts/debian-changelog.sh reads MotionVersion.swift)")
    func changelog() async throws {
        let text = try String(contentsOf: Emulation.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = text.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(MotionVersion.current) ") == true, "\(String(describing: newest))")
        let debian = try await Emulation.run([Emulation.packageRoot.appendingPathComponent("scripts/debian-changelog.sh").path])
        #expect(debian.status == 0 && debian.stdout.hasPrefix("motiond (\(MotionVersion.current)-1) unstable; urgency=medium\n"), "\(debian.stdout) \(debian.stderr)")
    }
}

/// The manual pages `make install` installs (scripts/manpages.sh; `make check` writes them into
/// .build/check-man from the debug build first) and the shell completions.
@Suite("Manual pages and shell completions")
struct ManualPagesTests {
    static let pages = Emulation.packageRoot.appendingPathComponent(".build/check-man")
    static var written: Bool { FileManager.default.fileExists(atPath: pages.appendingPathComponent("motiond.toml.5").path) }

    @Test("motiond(8), motionctl(1), motiond-rotate(1), motiond.toml(5): each renders with man, names its command and this version's options",
          .enabled(if: written, "the pages are written by make check (scripts/manpages.sh .build/debug .build/check-man)"))
    func pagesRender() async throws {
        for (page, title, mentions) in [("motiond.8", "MOTIOND(8)", ["--list-sensors", "--sensor-proxy", "--version"]),
                                        ("motionctl.1", "MOTIONCTL(1)", ["monitor", "record", "calibrate", "--reply-timeout"]),
                                        ("motiond-rotate.1", "MOTIOND-ROTATE(1)", ["--backend", "--debounce"]),
                                        ("motiond.toml.5", "MOTIOND.TOML(5)", ["rest-interval", "tablet-mode-switch", "[detectors.posture]"])] {
            let path = Self.pages.appendingPathComponent(page).path
            let rendered = try await Emulation.run(["man", "-l", path], environment: ["MANWIDTH": "200", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
            #expect(rendered.status == 0 && rendered.stdout.contains(title), "\(page): \(rendered.stderr)")
            for word in mentions { #expect(rendered.stdout.contains(word), "\(page) does not mention \(word)") }
        }
    }

    @Test("motiond.toml(5) describes every setting of the shipped file, at its default",
          .enabled(if: written, "the pages are written by make check (scripts/manpages.sh .build/debug .build/check-man)"))
    func configurationPage() throws {
        let page = try String(contentsOf: Self.pages.appendingPathComponent("motiond.toml.5"), encoding: .utf8)
        let shipped = try String(contentsOf: Emulation.packageRoot.appendingPathComponent("etc/motiond/motiond.toml"), encoding: .utf8)
        let settings = shipped.split(separator: "\n").filter { $0.hasPrefix("#") && $0.dropFirst().first?.isLetter == true && $0.contains(" = ") }
        #expect(settings.count > 40)
        for setting in settings {
            let key = setting.dropFirst().split(separator: " ").first!
            #expect(page.contains(".It Cm \(key) No = Li "), "motiond.toml(5) lacks \(key)")
        }
        #expect(!page.contains("(no description)"), "a setting without its comment")
    }

    @Test("bash completes motionctl's subcommands, stream names and frames; zsh and fish scripts carry them too")
    func completions() async throws {
        let script = """
            source <("$1" --generate-completion-script bash)
            complete=$(complete -p motionctl | sed 's/.* -F \\([^ ]*\\) .*/\\1/')
            try() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                    "$complete" motionctl "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "${COMPREPLY[*]}"; }
            try motionctl mon; try motionctl monitor device; try motionctl get pos; try motionctl monitor --frame xArb
            """
        let bash = try await Emulation.run(["/bin/bash", "-c", script, "bash", MotionCtlTests.motionctl])
        let lines = bash.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(bash.status == 0 && lines.count >= 3, "\(bash.stdout) \(bash.stderr)")
        #expect(lines.prefix(4) == ["monitor", "deviceMotion", "posture", "xArbitraryZVertical xArbitraryCorrectedZVertical"], "\(lines)")
        for shell in ["zsh", "fish"] {
            let generated = try await Emulation.run([MotionCtlTests.motionctl, "--generate-completion-script", shell])
            #expect(generated.status == 0 && generated.stdout.contains("deviceMotion") && generated.stdout.contains("calibrate"), "\(shell)")
        }
    }

    @Test("fish and zsh complete motionctl's subcommands, stream names and frames",
          .enabled(if: Compositors.installed("fish") && Compositors.installed("zsh"), "fish and zsh are test dependencies (scripts/install-deps.sh test)"))
    func otherShells() async throws {
        let directory = URL(fileURLWithPath: MotionCtlTests.motionctl).deletingLastPathComponent().path
        var environment = RunningProcess.plainEnvironment
        environment["PATH"] = directory + ":/usr/bin:/bin"
        let fish = try await Emulation.run(["fish", "--no-config", "-c", """
            motionctl --generate-completion-script fish | source
            complete -C "motionctl mon"; complete -C "motionctl monitor devi"; complete -C "motionctl get --frame xMag"
            """], environment: environment)
        let words = fish.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(fish.status == 0 && words == ["monitor", "deviceMotion", "xMagneticNorthZVertical"], "\(fish.stdout) \(fish.stderr)")
        // zsh completes only in its line editor: an interactive zsh on a pseudo-terminal (zpty)
        // is typed each query and a tab, with compadd wrapped to print what it is given (every
        // query here has candidates; one without would end in the timeout).
        let zsh = try await Emulation.run(["timeout", "20", "zsh", "-f", "-c", #"""
            zmodload zsh/zpty && zpty z zsh -f -i
            zpty -w z 'PROMPT=; autoload -U compinit && compinit -u -D; eval "$(motionctl --generate-completion-script zsh)"'
            zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a hits; builtin compadd -A hits "$@"; (( $#hits )) && print -rl -- "" ${hits/#/candidate:} end-of-candidates; }'
            zpty -w z 'print -r -- ready:$((6*7))' && zpty -r z out '*ready:42*'
            for query in "$@"; do
                # The candidates are awaited before the line is cleared: typed ahead, the rest
                # could overtake the completion.
                zpty -wn z "$query"$'\t' && zpty -r z listed '*end-of-candidates*'
                zpty -w z $'\C-u'"print -r -- done:\$((6*7))" && zpty -r z out '*done:42*'
                words=(); for line in "${(@f)listed}" "${(@f)out}"; do [[ $line == candidate:* ]] && words+=(${${line#candidate:}//[$' \r']/}); done
                print -r -- "${(j: :)words}"
            done
            """#, "zsh", "motionctl mon", "motionctl monitor devi", "motionctl get --frame xMag", "motionctl monitor --frame xArb"],
            environment: environment)
        #expect(zsh.status == 0 && zsh.stdout.split(separator: "\n") == ["monitor", "deviceMotion", "xMagneticNorthZVertical", "xArbitraryZVertical xArbitraryCorrectedZVertical"],
                "\(zsh.stdout) \(zsh.stderr)")
    }
}
