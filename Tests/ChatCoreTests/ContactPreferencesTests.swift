import SimplexEncoding
import XCTest

@testable import ChatCore

/// A contact's merged preferences as the official core computes them (`contactUserPreferences`).
final class ContactPreferencesTests: XCTestCase {
    private func prefs(_ json: String) throws -> Preferences { try Preferences(JSONInput(CanonicalJSON.parse(json))) }

    /// chat-api.md's Contact example: default user preferences against a contact that turned timed messages off.
    func testChatAPIExample() throws {
        let contact = try prefs(
            #"{"timedMessages":{"allow":"no"},"fullDelete":{"allow":"no"},"reactions":{"allow":"yes"},"voice":{"allow":"yes"},"files":{"allow":"always"},"calls":{"allow":"yes"},"sessions":{"allow":"no"}}"#
        )
        let merged = ContactUserPreferences(user: nil, forContact: Preferences(), contact: contact, incognito: false)
        XCTAssertEqual(
            merged.json.rendered,
            #"{"timedMessages":{"enabled":{"forUser":false,"forContact":false},"userPreference":{"type":"user","preference":{"allow":"yes"}},"contactPreference":{"allow":"no"}},"fullDelete":{"enabled":{"forUser":false,"forContact":false},"userPreference":{"type":"user","preference":{"allow":"no"}},"contactPreference":{"allow":"no"}},"reactions":{"enabled":{"forUser":true,"forContact":true},"userPreference":{"type":"user","preference":{"allow":"yes"}},"contactPreference":{"allow":"yes"}},"voice":{"enabled":{"forUser":true,"forContact":true},"userPreference":{"type":"user","preference":{"allow":"yes"}},"contactPreference":{"allow":"yes"}},"files":{"enabled":{"forUser":true,"forContact":true},"userPreference":{"type":"user","preference":{"allow":"always"}},"contactPreference":{"allow":"always"}},"calls":{"enabled":{"forUser":true,"forContact":true},"userPreference":{"type":"user","preference":{"allow":"yes"}},"contactPreference":{"allow":"yes"}},"sessions":{"enabled":{"forUser":false,"forContact":false},"userPreference":{"type":"user","preference":{"allow":"no"}},"contactPreference":{"allow":"no"}}}"#
        )
    }

    /// Every pair of choices, for an asymmetric feature and for timed messages.
    func testPrefEnabledTable() {
        let cases: [(FeatureAllowed, FeatureAllowed, (Bool, Bool), (Bool, Bool))] = [
            (.always, .always, (true, true), (true, true)), (.always, .yes, (true, true), (true, true)),
            (.always, .no, (false, true), (false, false)), (.yes, .always, (true, true), (true, true)),
            (.yes, .yes, (true, true), (true, true)), (.yes, .no, (false, false), (false, false)),
            (.no, .always, (true, false), (false, false)), (.no, .yes, (false, false), (false, false)),
            (.no, .no, (false, false), (false, false)),
        ]
        for (user, contact, asym, sym) in cases {
            let a = PrefEnabled(asymmetric: true, user: user, contact: contact)
            let s = PrefEnabled(asymmetric: false, user: user, contact: contact)
            XCTAssertEqual([a.forUser, a.forContact], [asym.0, asym.1], "\(user) \(contact)")
            XCTAssertEqual([s.forUser, s.forContact], [sym.0, sym.1], "\(user) \(contact)")
        }
    }

    /// The contact's own setting wins over the user's general one, which wins over the default; incognito
    /// connections ignore the general one.
    func testSourcesOfTheUsersSide() throws {
        let user = try prefs(#"{"fullDelete":{"allow":"always"},"timedMessages":{"allow":"yes","ttl":3600}}"#)
        let forContact = try prefs(#"{"voice":{"allow":"no"}}"#)
        let contact = try prefs(#"{"fullDelete":{"allow":"no"},"voice":{"allow":"always"}}"#)
        let merged = ContactUserPreferences(user: user, forContact: forContact, contact: contact, incognito: false)
        XCTAssertEqual(merged.features["fullDelete"]?.userPreferenceSource, .user)
        XCTAssertEqual(merged.features["fullDelete"]?.userPreference.allow, .always)
        XCTAssertEqual(merged.enabled("fullDelete"), PrefEnabled(forUser: false, forContact: true))
        XCTAssertEqual(merged.features["voice"]?.userPreferenceSource, .contact)
        XCTAssertEqual(merged.enabled("voice"), PrefEnabled(forUser: true, forContact: false))
        XCTAssertEqual(merged.features["timedMessages"]?.userPreference.ttl, 3600)
        XCTAssertEqual(merged.enabled("reactions"), PrefEnabled(forUser: true, forContact: true))

        let incognito = ContactUserPreferences(user: user, forContact: forContact, contact: contact, incognito: true)
        XCTAssertEqual(incognito.features["fullDelete"]?.userPreferenceSource, .contact)
        XCTAssertEqual(incognito.features["fullDelete"]?.userPreference.allow, .no)
        XCTAssertEqual(incognito.enabled("fullDelete"), PrefEnabled(forUser: false, forContact: false))
        XCTAssertEqual(incognito.features["timedMessages"]?.userPreference.ttl, nil)
    }
}

extension ContactPreferencesTests {
    /// What the real client puts in its `x.info` by default (smp.md §9.5): every feature, and `commands: []`.
    func testPreferencesSentToAContact() throws {
        let defaults = Preferences.toSend(user: nil, forContact: nil, incognito: false)
        XCTAssertEqual(
            defaults.json.keysSorted.rendered,
            #"{"calls":{"allow":"yes"},"commands":[],"files":{"allow":"always"},"fullDelete":{"allow":"no"},"reactions":{"allow":"yes"},"sessions":{"allow":"no"},"timedMessages":{"allow":"yes"},"voice":{"allow":"yes"}}"#
        )
        let user = try prefs(#"{"voice":{"allow":"no"},"calls":{"allow":"always"}}"#)
        let forContact = try prefs(#"{"calls":{"allow":"no"}}"#)
        let sent = Preferences.toSend(user: user, forContact: forContact, incognito: false)
        XCTAssertEqual(sent.features["voice"]?.allow, FeatureAllowed.no)
        XCTAssertEqual(sent.features["calls"]?.allow, FeatureAllowed.no)
        let incognito = Preferences.toSend(user: user, forContact: nil, incognito: true)
        XCTAssertEqual(incognito.features["voice"]?.allow, .yes)
    }
}
