/// A setting declared once: what it is called, what it takes, what it
/// defaults to, what it does and who takes it. Front ends read their option
/// names, help, configuration keys and the names in their messages from
/// here, and an engine's one check (the replay's is
/// `EvictionSim.RunDescription.check(spelling:)`) reads its rules from the
/// same place.
public struct SettingDeclaration: Sendable, Hashable {
  /// The setting as the libraries name it (its API name).
  public let setting: Setting
  /// What it takes, with its unit and range: "a whole number, at least 1".
  public let value: String
  /// Its value when none is given, as it would be written; nil for none.
  public let defaultValue: String?
  /// What it does, one or two sentences: the command line's help.
  public let help: String
  /// The commands that take it as an option (`replay`, `compare`).
  public let commands: [String]
  /// Its key in a configuration file, when one takes it (`size_mode`).
  public let configKey: String?

  public init(
    _ setting: Setting, value: String, default defaultValue: String? = nil, help: String, commands: [String],
    configKey: String? = nil
  ) {
    self.setting = setting
    self.value = value
    self.defaultValue = defaultValue
    self.help = help
    self.commands = commands
    self.configKey = configKey
  }

  /// The name a configuration file gives the setting by default: its API
  /// name in snake case (`sizeMode`: `size_mode`).
  public static func snakeCase(_ name: String) -> String {
    var key = ""
    for character in name {
      if character.isUppercase { key += "_" + character.lowercased() } else { key.append(character) }
    }
    return key
  }
}
