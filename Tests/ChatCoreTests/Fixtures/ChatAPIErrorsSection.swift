// swift-format-ignore-file
// chat-api.md §8.1–8.7, copied verbatim from ../shared/spec/chat-api.md (tests do not read outside the repository).
// ErrorTagTests parses its tables; when the spec changes, copy the section again.

let chatAPIErrorsSection = #"""
## 8. Errors

### 8.1 ChatError (the value of `error` in an envelope)

| `type` | Fields | Meaning |
|---|---|---|
| `error` | errorType:ChatErrorType (8.2) | chat-level error |
| `errorAgent` | agentError:AgentErrorType (8.4), agentConnId:string, connectionEntity_?:ConnectionEntity | error from the SMP agent (network, crypto, protocol). `agentConnId` is the agent connection id (base64url; UNCONFIRMED: `""` when not connection-specific; older cores omitted the key) |
| `errorStore` | storeError:StoreError (8.3) | database lookup/integrity error |
| `errorDatabase` | databaseError:DatabaseError (8.5) | database open/encryption/export error |
| `errorRemoteCtrl` | remoteCtrlError:RemoteCtrlError (8.6) | mobile side of remote desktop |
| `errorRemoteHost` | rhKey:RHKey, remoteHostError:RemoteHostError (8.6) | desktop side only |

PY 7.0.2 models only the first three (bots never see the others). IOS decodes all six.

```json
{"error":{"type":"errorAgent","agentError":{"type":"BROKER","brokerAddress":"smp://0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=@smp8.simplex.im","brokerErr":{"type":"TIMEOUT"}},"agentConnId":"d2xPbVh2bE1OUzJx"}}
```

### 8.2 ChatErrorType (`error.errorType.type`)

Fields are listed after the tag; `—` = no fields. Source: PY 7.0.2 `ChatErrorType` plus CORE-only variants (marked C).

| Tag | Fields | Typical cause |
|---|---|---|
| noActiveUser | — | no user created / selected |
| noConnectionUser | agentConnId | event for a connection whose user is unknown |
| noSndFileUser | agentSndFileId | |
| noRcvFileUser | agentRcvFileId | |
| userUnknown | — | hidden user / wrong password (UNCONFIRMED: mapping) |
| userExists | contactName | `/_create user` with an existing display name |
| chatRelayExists | — | creating a second chat-relay user (newest) |
| differentActiveUser | commandUserId, activeUserId | `<userId>` argument is not the active user |
| cantDeleteActiveUser | userId | |
| cantDeleteLastUser | userId | |
| cantHideLastUser | userId | |
| hiddenUserAlwaysMuted | userId | `/_unmute user` of a hidden user |
| emptyUserPassword | userId | |
| userAlreadyHidden | userId | |
| userNotHidden | userId | |
| invalidDisplayName | displayName, validName | name fails validation; `validName` = suggested valid version |
| chatNotStarted | — | command needs `/_start` first |
| chatNotStopped | — | DB commands need `/_stop` first |
| chatStoreChanged | — | database was replaced (import) — restart required |
| invalidConnReq | — | link cannot be parsed / wrong link type |
| simplexDomainNotReady | simplexDomain:{nameTLD, domain, subDomain:[string]}, simplexDomainError:`noValidLink`\|`unknownDomain` | SimpleX-name resolution (newest) |
| notResolvedLocally | — | newest (names) |
| unsupportedConnReq | — | link version not supported |
| invalidChatMessage (C) | connection, msgMeta?, messageData:string, message:string | received message failed to parse |
| connReqMessageProhibited | — | message with connection request not allowed |
| contactNotFound (C) | contactName, suspectedMember?:[GroupInfo, GroupMember] | human commands by name |
| contactNotReady | contact | contact not yet connected |
| contactNotActive | contact | contact deleted / inactive |
| contactDisabled | contact | connection disabled |
| connectionDisabled | connection | |
| groupUserRole | groupInfo, requiredRole | user's role too low |
| groupMemberInitialRole | groupInfo, initialRole | invalid role for a group link |
| contactIncognitoCantInvite | — | |
| groupIncognitoCantInvite | — | |
| groupContactRole | contactName | |
| groupDuplicateMember | contactName | contact is already a member |
| groupDuplicateMemberId | — | |
| groupNotJoined | groupInfo | invitation not accepted yet |
| groupMemberNotActive | — | member not connected |
| cantBlockMemberForSelf | groupInfo, member, setShowMessages | |
| groupMemberUserRemoved | — | user was removed from the group |
| groupMemberNotFound | — | |
| groupCantResendInvitation | groupInfo, contactName | |
| groupInternal | message | |
| fileNotFound | message | |
| fileSize | filePath | file too large |
| fileAlreadyReceiving | message | |
| fileCancelled | message | |
| fileCancel | fileId, message | cannot cancel (completed/cancelled) |
| fileAlreadyExists | filePath | |
| fileWrite | filePath, message | |
| fileSend | fileId, agentError | |
| fileRcvChunk | message | |
| fileInternal | message | |
| fileImageType | filePath | |
| fileImageSize | filePath | |
| fileNotReceived | fileId | |
| fileNotApproved | fileId, unknownServers:[string] | XFTP relays need user approval (`approved_relays=on`) |
| fallbackToSMPProhibited | fileId | |
| inlineFileProhibited | fileId | |
| invalidForward | — | |
| invalidChatItemUpdate | — | |
| invalidChatItemDelete | — | |
| hasCurrentCall | — | |
| noCurrentCall | — | |
| callContact | contactId | call belongs to another contact |
| callState (C) | currentCallState:string | wrong call state for the command |
| directMessagesProhibited | direction:`rcv`\|`snd`, contact | |
| agentVersion | — | |
| agentNoSubResult | agentConnId | |
| commandError | message | parse errors and generic invalid-command errors |
| serverProtocol (C) | serverProtocol:`smp`\|`xftp`\|`ntf` | wrong server protocol for the command |
| agentCommandError | message | |
| invalidFileDescription | message | |
| connectionIncognitoChangeProhibited | — | |
| connectionUserChangeProhibited | — | |
| peerChatVRangeIncompatible | — | peer's chat protocol version too old |
| relayTestError | message | chat relay test (newest) |
| internalError | message | |
| exception | message | unexpected exception text |

Older cores also had `activeUserExists` (deprecated). Clients must tolerate unknown tags.

```json
{"error":{"type":"error","errorType":{"type":"differentActiveUser","commandUserId":2,"activeUserId":1}}}
```

```json
{"error":{"type":"error","errorType":{"type":"commandError","message":"Failed reading: empty"}}}
```

### 8.3 StoreError (`error.storeError.type`)

| Tag | Fields |
|---|---|
| duplicateName | — |
| userNotFound | userId |
| relayUserNotFound | — |
| userNotFoundByName | contactName |
| userNotFoundByContactId | contactId |
| userNotFoundByGroupId | groupId |
| userNotFoundByFileId | fileId |
| userNotFoundByContactRequestId | contactRequestId |
| contactNotFound | contactId |
| contactNotFoundByName | contactName |
| contactNotFoundByMemberId | groupMemberId |
| contactNotReady | contactName |
| duplicateContactLink | — |
| userContactLinkNotFound | — |
| contactRequestNotFound | contactRequestId |
| contactRequestNotFoundByName | contactName |
| invalidContactRequestEntity | contactRequestId |
| invalidBusinessChatContactRequest | — |
| groupNotFound | groupId |
| groupNotFoundByName | groupName |
| groupMemberNameNotFound | groupId, groupMemberName |
| groupMemberNotFound | groupMemberId |
| groupMemberNotFoundByIndex | groupMemberIndex |
| memberRelationsVectorNotFound | groupMemberId |
| groupHostMemberNotFound | groupId |
| groupMemberNotFoundByMemberId | memberId |
| memberContactGroupMemberNotFound | contactId |
| invalidMemberRelationUpdate | — |
| groupWithoutUser | — |
| duplicateGroupMember | — |
| duplicateMemberId | — |
| groupAlreadyJoined | — |
| groupInvitationNotFound | — |
| noteFolderAlreadyExists | noteFolderId |
| noteFolderNotFound | noteFolderId |
| userNoteFolderNotFound | — |
| sndFileNotFound | fileId |
| sndFileInvalid | fileId |
| rcvFileNotFound | fileId |
| rcvFileDescrNotFound | fileId |
| fileNotFound | fileId |
| rcvFileInvalid | fileId |
| rcvFileInvalidDescrPart | — |
| localFileNoTransfer | fileId |
| sharedMsgIdNotFoundByFileId | fileId |
| fileIdNotFoundBySharedMsgId | sharedMsgId |
| sndFileNotFoundXFTP | agentSndFileId |
| rcvFileNotFoundXFTP | agentRcvFileId |
| connectionNotFound | agentConnId |
| connectionNotFoundById | connId |
| connectionNotFoundByMemberId | groupMemberId |
| pendingConnectionNotFound | connId |
| uniqueID | — |
| largeMsg | — |
| internalError | message |
| dBException | message |
| dBBusyError | message |
| badChatItem | itemId, itemTs? |
| chatItemNotFound | itemId |
| chatItemNotFoundByText | text |
| chatItemSharedMsgIdNotFound | sharedMsgId |
| chatItemNotFoundByFileId | fileId |
| chatItemNotFoundByContactId | contactId |
| chatItemNotFoundByGroupId | groupId |
| profileNotFound | profileId |
| duplicateGroupLink | groupInfo |
| groupLinkNotFound | groupInfo |
| hostMemberIdNotFound | groupId |
| contactNotFoundByFileId | fileId |
| noGroupSndStatus | itemId, groupMemberId |
| duplicateGroupMessage | groupId, sharedMsgId, authorGroupMemberId?, forwardedByGroupMemberId? |
| remoteHostNotFound | remoteHostId |
| remoteHostUnknown | — |
| remoteHostDuplicateCA | — |
| remoteCtrlNotFound | remoteCtrlId |
| remoteCtrlDuplicateCA | — |
| prohibitedDeleteUser | userId, contactId |
| operatorNotFound | serverOperatorId |
| usageConditionsNotFound | — |
| userChatRelayNotFound | chatRelayId |
| groupRelayNotFound | groupRelayId |
| groupRelayNotFoundByMemberId | groupMemberId |
| invalidQuote | — |
| invalidMention | — |
| invalidDeliveryTask | taskId |
| deliveryTaskNotFound | taskId |
| invalidDeliveryJob | jobId |
| deliveryJobNotFound | jobId |
| workItemError | errContext |

```json
{"error":{"type":"errorStore","storeError":{"type":"contactNotFound","contactId":99}}}
```

```json
{"error":{"type":"errorStore","storeError":{"type":"groupLinkNotFound","groupInfo":{"groupId":7,"...":"..."}}}}
```

### 8.4 AgentErrorType and nested agent/protocol errors

Agent error tags are UPPER_CASE (simplexmq convention). Top level (`agentError.type`):

| Tag | Fields |
|---|---|
| CMD | cmdErr:CommandErrorType, errContext:string |
| CONN | connErr:ConnectionErrorType, errContext:string |
| NO_USER | — |
| SMP | serverAddress:string, smpErr:ErrorType |
| NTF | serverAddress, ntfErr:ErrorType |
| XFTP | serverAddress, xftpErr:XFTPErrorType |
| FILE | fileErr:FileErrorType |
| NO_NAME_SERVERS | — (newest) |
| PROXY | proxyServer, relayServer, proxyErr:ProxyClientError |
| RCP | rcpErr:RCErrorType |
| BROKER | brokerAddress, brokerErr:BrokerErrorType |
| AGENT | agentErr:SMPAgentError |
| NOTICE | server, preset:bool, expiresAt?:UTCTime |
| INTERNAL | internalErr:string |
| CRITICAL | offerRestart:bool, criticalErr:string |
| INACTIVE | — (agent suspended/stopped) |

Nested types:

| Type | Variants (`type`) |
|---|---|
| CommandErrorType | `PROHIBITED`, `SYNTAX`, `NO_CONN`, `SIZE`, `LARGE` |
| ConnectionErrorType | `NOT_FOUND`, `DUPLICATE`, `SIMPLEX`, `NOT_ACCEPTED`, `NOT_AVAILABLE` |
| ErrorType (SMP/NTF server) | `BLOCK`, `SESSION`, `CMD{cmdErr:CommandError}`, `PROXY{proxyErr:ProxyError}`, `AUTH`, `BLOCKED{blockInfo:{reason, notice?}}`, `SERVICE`, `CRYPTO`, `QUOTA`, `STORE{storeErr}`, `NO_MSG`, `LARGE_MSG`, `EXPIRED`, `INTERNAL`, `NAME{nameErr: NO_RESOLVER \| NOT_FOUND \| RESOLVER{resolverErr}}`, `DUPLICATE_` |
| CommandError (server) | `UNKNOWN`, `SYNTAX`, `PROHIBITED`, `NO_AUTH`, `HAS_AUTH`, `NO_ENTITY` |
| ProxyError | `PROTOCOL{protocolErr:ErrorType}`, `BROKER{brokerErr:BrokerErrorType}`, `BASIC_AUTH`, `NO_SESSION` |
| ProxyClientError | `protocolError{protocolErr}`, `unexpectedResponse{responseStr}`, `responseError{responseErr}` |
| BrokerErrorType | `RESPONSE{respErr}`, `UNEXPECTED{respErr}`, `NETWORK{networkError:NetworkError}`, `HOST`, `NO_SERVICE`, `TRANSPORT{transportErr:TransportError}`, `TIMEOUT` |
| NetworkError | `connectError{connectError}`, `tLSError{tlsError}`, `unknownCAError`, `failedError`, `timeoutError`, `subscribeError{subscribeError}` |
| TransportError | `badBlock`, `version`, `largeMsg`, `badSession`, `noServerAuth`, `handshake{handshakeErr: "PARSE"\|"IDENTITY"\|"BAD_AUTH"\|"BAD_SERVICE"}` |
| SMPAgentError | `A_MESSAGE`, `A_PROHIBITED{prohibitedErr}`, `A_VERSION`, `A_LINK{linkErr}`, `A_CRYPTO{cryptoErr: DECRYPT_AES \| DECRYPT_CB \| RATCHET_HEADER \| RATCHET_SYNC}`, `A_DUPLICATE{droppedMsg_?:{brokerTs, attempts}}`, `A_QUEUE{queueErr}` (service requests add `A_SERVICE…` — UNCONFIRMED: shape) |
| XFTPErrorType | `BLOCK`, `SESSION`, `HANDSHAKE`, `CMD{cmdErr:CommandError}`, `AUTH`, `BLOCKED{blockInfo}`, `SIZE`, `QUOTA`, `DIGEST`, `CRYPTO`, `NO_FILE`, `HAS_FILE`, `FILE_IO`, `TIMEOUT`, `INTERNAL`, `DUPLICATE_` |
| FileErrorType (agent) | `NOT_APPROVED`, `SIZE`, `REDIRECT{redirectError}`, `FILE_IO{fileIOError}`, `NO_FILE` |
| RCErrorType | `internal{internalErr}`, `identity`, `noLocalAddress`, `newController`, `notDiscovered`, `tLSStartFailed`, `exception{exception}`, `ctrlAuth`, `ctrlNotFound`, `ctrlError{ctrlErr}`, `invitation`, `version`, `encrypt`, `decrypt`, `blockSize`, `syntax{syntaxErr}` |

```json
{"type":"SMP","serverAddress":"smp://0YuTwO05YJWS8rkjn9eLJDjQhFKvIYd8d4xG8X1blIU=@smp8.simplex.im","smpErr":{"type":"AUTH"}}
```

```json
{"type":"BROKER","brokerAddress":"smp://u2dS9sG8nMNURyZwqASV4yROM28Er0luVTx5X1CsMrU=@smp4.simplex.im","brokerErr":{"type":"NETWORK","networkError":{"type":"connectError","connectError":"connection refused"}}}
```

```json
{"type":"CRITICAL","offerRestart":true,"criticalErr":"database is locked"}
```

### 8.5 DatabaseError, SQLiteError

| DatabaseError `type` | Fields |
|---|---|
| errorEncrypted | — (database is encrypted, key needed) |
| errorPlaintext | — (database is not encrypted, but a key was given) |
| errorNoFile | dbFile:string |
| errorExport | sqliteError:SQLiteError |
| errorOpen | sqliteError:SQLiteError |

SQLiteError: `{"type":"errorNotADatabase"}` \| `{"type":"error","dbError":string}`.

```json
{"error":{"type":"errorDatabase","databaseError":{"type":"errorOpen","sqliteError":{"type":"errorNotADatabase"}}}}
```

### 8.6 RemoteCtrlError, RemoteHostError, RHKey

| RemoteCtrlError `type` | Fields |
|---|---|
| inactive | — |
| badState | — |
| busy | — |
| timeout | — |
| noKnownControllers | — |
| badController | — |
| disconnected | remoteCtrlId, reason |
| badInvitation | — |
| badVersion | appVersion:string |
| hTTP2Error | http2Error |
| protocolError | protocolError:RemoteProtocolError |

RemoteHostError: `missing`, `inactive`, `busy`, `timeout`, `badState`, `badVersion{appVersion}`,
`localCommand`, `disconnected{reason}`, `protocolError` (UNCONFIRMED: positional, i.e. `{"type":"protocolError","data":RemoteProtocolError}`).
RemoteProtocolError tags: `invalidSize`, `invalidJSON{invalidJSON}`, `invalidBody{invalidBody}`,
`sessionCode`, `incompatibleEncoding`, `unexpectedFile`, `noFile`, `fileSize`, `fileDigest`,
`manySkippedIds`, `earlierId`, `duplicateId`, `unexpectedResponse{response}`, `storedFileExists`,
`remoteControl{rcError}`, `hTTP2{http2Error}` (UNCONFIRMED: exact tags; desktop-only relevance).
RHKey (desktop only): new host vs `remoteHostId` (UNCONFIRMED: JSON shape).

### 8.7 ArchiveError

`{"type":"import","importError":string}` \| `{"type":"fileError","file":string,"fileError":string}` —
returned inside `archiveExported`/`archiveImported` `archiveErrors` (non-fatal per-file errors).
"""#
