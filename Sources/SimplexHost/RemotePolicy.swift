public import ChatModel

/// Which commands stay on the host (xrcp.md §15.4). The reference host trusts the controller to filter them;
/// this host refuses them itself.
public enum RemotePolicy {
    /// Commands a controller may never run on this host: lifecycle, folders, file encryption, database, network
    /// configuration, device name, and every remote-control command.
    public static let neverForwarded: Set<CommandName> = remoteControl.union([
        .startChat, .apiStopChat, .apiActivateChat, .apiSuspendChat, .apiSetAppFilePaths, .apiSetEncryptLocalFiles,
        .apiExportArchive, .apiImportArchive, .apiDeleteStorage, .apiStorageEncryption, .testStorageEncryption,
        .apiSetNetworkConfig, .apiGetNetworkConfig,
    ])

    /// The host's own remote-control commands (xrcp.md §14), served by `HostRemoteControl`.
    public static let remoteControl: Set<CommandName> = [
        .setLocalDeviceName, .connectRemoteCtrl, .findKnownRemoteCtrl, .confirmRemoteCtrl, .verifyRemoteCtrlSession,
        .listRemoteCtrls, .stopRemoteCtrl, .deleteRemoteCtrl,
    ]
}
