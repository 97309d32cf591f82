import ChorusClient
import ChorusCrypto
import ChorusServer
import Foundation
import Testing

/// The names in the self-made certificate, and what the client says when the name it
/// dialled is not among a certificate's names.
@Suite(.timeLimit(.minutes(10))) struct CertificateNameTests {
    /// A name that reaches this machine over loopback but is not in a certificate made for
    /// localhost: the machine's host name, when it resolves (it does in this project's
    /// machines: /etc/hosts lists it).
    static var resolvableMachineName: String? {
        guard let name = ListeningNames.machineName(), name != "localhost" else { return nil }
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, nil, &list) == 0 else { return nil }
        freeaddrinfo(list)
        return name
    }

    /// `--host 127.0.0.2`: the self-made certificate names that address, so a client that
    /// dials it verifies. Before, it named only localhost and 127.0.0.1 and failed.
    @Test func theSelfMadeCertificateNamesTheHostAddress() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--host", "127.0.0.2", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let certificate = directory.path + "/certs/server.crt"
        let names = try CertificateNames.subjectAltNames(pemFile: certificate)
        #expect(names == ["DNS:localhost", "IP:127.0.0.1", "IP:127.0.0.2"])
        #expect(daemon.stdoutLines.contains { $0.contains("for DNS:localhost, IP:127.0.0.1, IP:127.0.0.2") })
        let client = try LineClient(host: "127.0.0.2", port: daemon.port, trust: .certificateFile(certificate), serverName: "127.0.0.2")
        #expect(try client.readLine()?.hasPrefix("* chorus") == true)
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// `--host 0.0.0.0`: the certificate names the machine and every address of its
    /// interfaces, and a roommate dialling the LAN address verifies it.
    @Test func onAllInterfacesTheCertificateNamesTheMachine() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--host", "0.0.0.0", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let certificate = directory.path + "/certs/server.crt"
        let names = try CertificateNames.subjectAltNames(pemFile: certificate)
        let addresses = try ListeningNames.interfaceAddresses()
        for address in addresses { #expect(CertificateNames.covers(names, host: address), "\(address) not in \(names)") }
        if let machine = ListeningNames.machineName() { #expect(CertificateNames.covers(names, host: machine), "\(names)") }
        // Every IPv4 address of the machine verifies, the LAN one(s) included.
        let ipv4 = addresses.filter { !$0.contains(":") }
        #expect(ipv4.count >= 1)
        for address in ipv4 {
            let client = try LineClient(host: address, port: daemon.port, trust: .certificateFile(certificate), serverName: address)
            #expect(try client.readLine()?.hasPrefix("* chorus") == true, "\(address)")
        }
        if let machine = Self.resolvableMachineName {
            let client = try LineClient(host: machine, port: daemon.port, trust: .certificateFile(certificate), serverName: machine)
            #expect(try client.readLine()?.hasPrefix("* chorus") == true)
        }
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// An existing certificate is kept (its fingerprint is what clients remembered) even
    /// when it lacks the --host name; chorusd says so on standard error, and how to get
    /// a new one.
    @Test func anExistingCertificateIsKeptAndItsMissingNamesReported() throws {
        let directory = try TemporaryDirectory()
        let first = try ProcessTests.Daemon(["--port", "0", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try first.waitUntilListening())
        first.process.terminate()
        #expect(first.finish().status == 0)
        let certificate = directory.path + "/certs/server.crt"
        let before = try CertificateFingerprint.sha256(pemFile: certificate)

        let second = try ProcessTests.Daemon(["--port", "0", "--host", "127.0.0.2", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try second.waitUntilListening())
        second.process.terminate()
        let result = second.finish()
        #expect(result.status == 0)
        #expect(try CertificateFingerprint.sha256(pemFile: certificate) == before)
        #expect(result.stderr.contains("level=warn") && result.stderr.contains("certificate=certs/server.crt missing=127.0.0.2"), "\(result.stderr)")
        #expect(result.stderr.contains("delete certs/server.crt and certs/server.key"), "\(result.stderr)")
    }

    /// `chorus --ca` against a certificate for other names: the error says the name is
    /// what failed (X509_V_ERR_IP_ADDRESS_MISMATCH / X509_V_ERR_HOSTNAME_MISMATCH) and
    /// lists the names the certificate holds. Before: only "certificate verify failed".
    @Test func theClientSaysWhenTheNameIsWhatFailed() throws {
        let server = try TestServer { $0.host = "0.0.0.0" }
        let home = try TemporaryDirectory()
        let byAddress = try ChorusRun.run(["--host", "127.0.0.2", "--port", String(server.port), "--ca", server.certificatePath, "PING"],
                                          home: home.path)
        #expect(byAddress.status == 2)
        #expect(byAddress.stderr.contains("is not for 127.0.0.2 (X509_V_ERR_IP_ADDRESS_MISMATCH)"), "\(byAddress.stderr)")
        #expect(byAddress.stderr.contains("it names: DNS:localhost, IP:127.0.0.1"), "\(byAddress.stderr)")

        if let machine = Self.resolvableMachineName {
            let byName = try ChorusRun.run(["--host", machine, "--port", String(server.port), "--ca", server.certificatePath, "PING"],
                                           home: home.path)
            #expect(byName.status == 2)
            #expect(byName.stderr.contains("is not for \(machine) (X509_V_ERR_HOSTNAME_MISMATCH)"), "\(byName.stderr)")
            #expect(byName.stderr.contains("it names: DNS:localhost, IP:127.0.0.1"), "\(byName.stderr)")
        }
        // The right name still works.
        let right = try ChorusRun.run(["--host", "127.0.0.1", "--port", String(server.port), "--ca", server.certificatePath, "PING"],
                                      home: home.path)
        #expect(right.status == 0, "\(right.stderr)")
    }

    /// When the interfaces cannot be listed (getifaddrs needs an AF_NETLINK socket, which a
    /// sandbox may forbid) the names are still made, and one warning says the certificate
    /// will lack the machine's addresses. Before, the failure was silent.
    @Test func aFailedInterfaceListIsWarnedAbout() {
        struct Refused: Error, CustomStringConvertible { var description: String { "getifaddrs: Address family not supported by protocol" } }
        var warnings: [String] = []
        let names = ListeningNames(host: "0.0.0.0", addresses: { throw Refused() }, warn: { warnings.append($0) })
        #expect(names.ipAddresses == ["127.0.0.1"])
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("cannot list this machine's network addresses (getifaddrs: Address family") == true)
        #expect(warnings.first?.contains("will lack them") == true)
        // A named host does not need the list, so nothing is said.
        warnings = []
        _ = ListeningNames(host: "127.0.0.2", addresses: { throw Refused() }, warn: { warnings.append($0) })
        #expect(warnings.isEmpty)
    }
}
