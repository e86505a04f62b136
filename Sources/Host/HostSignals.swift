import Base
import FoundationEssentials
import Glibc
import Synchronization

/// A signal a host hears.
enum HostSignal: Sendable, CaseIterable {
    /// SIGINT: Ctrl-C.
    case interrupt
    /// SIGTERM: a service manager or `kill`.
    case terminate
    /// SIGHUP: the terminal went away.
    case hangUp

    var number: Int32 {
        switch self {
        case .interrupt: SIGINT
        case .terminate: SIGTERM
        case .hangUp: SIGHUP
        }
    }
}

/// Posted by the signal handler (`sem_post` is async-signal-safe); the relay thread waits on it.
nonisolated(unsafe) private var signalPosted = sem_t()
/// The signals that arrived since the relay thread last looked, one bit per signal number.
private let signalsArrived = Atomic<UInt64>(0)
/// Hosts listening; while none is, a signal does what it would without us (SIGINT ends a test run).
private let signalListenerCount = Atomic<Int>(0)

/// The process's SIGINT, SIGTERM and SIGHUP, handed to the hosts that listen. The handler only records the signal
/// and posts a semaphore (async-signal-safe), and it replaces whatever disposition the parent left (an inherited
/// SIG_IGN included); a thread of its own tells the listeners.
enum SignalRelay {
    private static let listeners = Locked<(next: Int, all: [Int: @Sendable (HostSignal) -> Void])>((0, [:]))
    private static let installed = Locked(false)

    /// Calls `listener` with each signal until `stopListening(_:)` with the returned id.
    static func listen(_ listener: @escaping @Sendable (HostSignal) -> Void) -> Int {
        install()
        let id = listeners.withLock { listeners in
            defer { listeners.next += 1 }
            listeners.all[listeners.next] = listener
            return listeners.next
        }
        signalListenerCount.add(1, ordering: .sequentiallyConsistent)
        return id
    }

    static func stopListening(_ id: Int) {
        signalListenerCount.subtract(1, ordering: .sequentiallyConsistent)
        _ = listeners.withLock { $0.all.removeValue(forKey: id) }
    }

    private static func install() {
        let first = installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        // Touched here, not first in the handler: a global's lazy initialisation is not async-signal-safe.
        _ = signalsArrived.load(ordering: .relaxed)
        _ = signalListenerCount.load(ordering: .relaxed)
        sem_init(&signalPosted, 0, 0)
        SystemThread.detached(name: "swiftcam-signals") {
            while true {
                while sem_wait(&signalPosted) != 0 {}  // EINTR: wait again
                let arrived = signalsArrived.exchange(0, ordering: .sequentiallyConsistent)
                let all = listeners.withLock { Array($0.all.values) }
                for signal in HostSignal.allCases where arrived & (1 << UInt64(signal.number)) != 0 {
                    for listener in all { listener(signal) }
                }
            }
        }
        for signal in HostSignal.allCases {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                guard signalListenerCount.load(ordering: .sequentiallyConsistent) > 0 else {
                    // No host listens: what the signal does by default (end the process).
                    Glibc.signal(number, SIG_DFL)
                    raise(number)
                    return
                }
                _ = signalsArrived.bitwiseOr(1 << UInt64(number), ordering: .sequentiallyConsistent)
                sem_post(&signalPosted)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal.number, &action, nil)
            var unblock = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, signal.number)
            pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        }
    }
}
