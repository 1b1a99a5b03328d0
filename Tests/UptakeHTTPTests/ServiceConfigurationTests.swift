import Testing
import UptakeCore
import UptakeHTTP
import UptakeStore
import UptakeTestSupport

@Suite("Service: the writer runs with the limits it was configured with")
struct ServiceConfigurationTests {
  @Test("writer limits set in the configuration are kept, not overwritten")
  func explicitLimitsKept() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var configuration = Service.Configuration()
    configuration.databasePath = scratch.databasePath
    configuration.writerLimits.maxFileBytes = 64 << 20
    configuration.writerLimits.maxReadHoldSeconds = 7
    let service = try Service(configuration: configuration)
    #expect(service.writer.limits.maxFileBytes == 64 << 20)
    #expect(service.writer.limits.maxReadHoldSeconds == 7)
  }

  @Test("left unset, the read hold follows the reports' time limit and files are uncapped")
  func defaultsDerived() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    var configuration = Service.Configuration()
    configuration.databasePath = scratch.databasePath
    configuration.serverLimits.reportTimeLimitSeconds = 12
    let service = try Service(configuration: configuration)
    #expect(service.writer.limits.maxFileBytes == nil)
    #expect(service.writer.limits.maxReadHoldSeconds == 17)
  }
}
