import Foundation

/// The body of a `/v1/check` answer, in the contract's Apptics-style shape,
/// turned into an `UpdateDecision`. Texts the server leaves out become empty
/// strings (a `force` prompt needs no "Ignore"); a missing id, version,
/// option or alert type, or an unknown category, is not a decision the app
/// can act on, so it reads as "no update".
enum CheckAnswer {
  /// The decision in `body`, or nil when the body is not a check answer.
  static func decision(from body: Data) -> UpdateDecision? {
    guard let answer = try? JSONDecoder().decode(Answer.self, from: body) else { return nil }
    if answer.hasupdate == 0 { return .noUpdate }
    guard answer.hasupdate == 1, let updateId = answer.updateid?.text else { return nil }
    switch answer.category {
    case 1:
      guard let latestVersion = answer.latestversion,
        let option = answer.option.flatMap(UpdateOption.init(rawValue:))
      else { return nil }
      let popup = answer.popupinfo
      let details = answer.updatedetails
      return .update(
        UpdatePrompt(
          updateId: updateId, latestVersion: latestVersion, option: option,
          texts: PromptTexts(
            title: popup?.title ?? "", description: popup?.description ?? "",
            updateNow: popup?.updatenow ?? "", remindMeLater: popup?.remindmelater ?? "",
            ignore: popup?.ignore ?? ""),
          reminderDays: details?.reminder ?? 0,
          storeURL: details?.storeurl.flatMap(URL.init(string:)),
          isForced: details?.toforce.map { $0 == 1 } ?? (option == .force)))
    case 2:
      guard let alertType = answer.alerttype.flatMap(UnsupportedOSAlert.init(rawValue:)) else {
        return nil
      }
      return .osTooOld(
        UnsupportedOSNotice(
          updateId: updateId, title: answer.title ?? "", description: answer.description ?? "",
          continueLabel: answer.continue ?? "", alertType: alertType))
    case 3:
      return .endOfLife(EndOfLifeNotice(updateId: updateId, message: answer.message ?? ""))
    default:
      return nil
    }
  }

  private struct Answer: Decodable {
    let hasupdate: Int
    let category: Int?
    let updateid: TextOrInteger?
    let latestversion: String?
    let option: Int?
    let popupinfo: PopupInfo?
    let updatedetails: UpdateDetails?
    let title: String?
    let description: String?
    let `continue`: String?
    let alerttype: Int?
    let message: String?
  }

  private struct PopupInfo: Decodable {
    let title: String?
    let description: String?
    let updatenow: String?
    let remindmelater: String?
    let ignore: String?
  }

  private struct UpdateDetails: Decodable {
    let reminder: Int?
    let storeurl: String?
    let toforce: Int?
  }

  /// An update id, which the contract lets be a JSON integer too.
  private struct TextOrInteger: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let integer = try? container.decode(Int64.self) {
        text = String(integer)
      } else {
        text = try container.decode(String.self)
      }
    }
  }
}
