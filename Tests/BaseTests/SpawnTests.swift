import Base
import Glibc
import Testing

@Suite struct SpawnTests {
    @Test func runsAProgramAndReadsWhatItPrints() throws {
        let output = try Spawn.pipe()
        let pid = try Spawn.start(
            ["sh", "-c", "printf 'one\\ntwo'; echo \"$GREETING\" >&2; exit 3"], environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"],
            standardOutput: output.write)
        close(output.write)
        #expect(String(decoding: Spawn.readAll(output.read), as: UTF8.self) == "one\ntwo")
        #expect(Spawn.wait(for: pid) == .exited(3))
    }

    @Test func aSignalIsReportedByName() throws {
        let pid = try Spawn.start(["sh", "-c", "kill -SEGV $$"])
        let termination = Spawn.wait(for: pid)
        #expect(termination == .signalled(SIGSEGV))
        #expect(termination.description == "killed by SIGSEGV")
    }

    @Test func aMissingProgramIsSaid() {
        #expect(throws: SystemError.self) { try Spawn.start(["/nonexistent/program"]) }
        #expect(Spawn.resolve("sh") != nil)
        #expect(Spawn.resolve("no-such-program-here") == nil)
        #expect(Spawn.resolve("/") == nil)
    }

    /// A descriptor of this process that is not close-on-exec (a client's socket, say) does not reach the child, and
    /// the child leads its own process group unless asked not to.
    @Test func theChildGetsNoOtherDescriptorAndAGroupOfItsOwn() throws {
        let leaked = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        defer { close(leaked) }
        for ownGroup in [true, false] {
            let output = try Spawn.pipe()
            let pid = try Spawn.start(
                ["sh", "-c", "ls /proc/$$/fd; echo group $(ps -o pgid= -p $$)"], standardOutput: output.write, ownProcessGroup: ownGroup)
            close(output.write)
            let lines = String(decoding: Spawn.readAll(output.read), as: UTF8.self).split(separator: "\n")
            _ = Spawn.wait(for: pid)
            #expect(Set(lines.filter { !$0.hasPrefix("group") }).isSubset(of: ["0", "1", "2", "255"]), "\(lines)")
            let group = lines.first { $0.hasPrefix("group") }.map { Int32($0.dropFirst(6).trimmed) } ?? nil
            #expect(group == (ownGroup ? pid : getpgrp()), "\(lines)")
        }
    }

    @Test func linesArriveOnAThreadOfTheirOwn() throws {
        let output = try Spawn.pipe()
        let pid = try Spawn.start(["sh", "-c", "printf 'a\\nb\\nlast'"], standardOutput: output.write)
        close(output.write)
        let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        defer { done.deallocate() }
        sem_init(done, 0, 0)
        nonisolated(unsafe) var lines: [String] = []
        nonisolated(unsafe) let semaphore = done
        Spawn.readLines(output.read, name: "test-lines") { line in
            lines.append(line)
            if line == "last" { sem_post(semaphore) }
        }
        while sem_wait(done) != 0 {}
        #expect(lines == ["a", "b", "last"])
        _ = Spawn.wait(for: pid)
    }
}
