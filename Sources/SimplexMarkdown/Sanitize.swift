extension WebURI {
    /// The address without its tracking parameters, or nil when it has none (`sanitizeUri`). `safe` removes only
    /// parameters known to track; otherwise a page name (a path of lower-case letters, `-`, `_` and `/`) keeps its
    /// first parameter unless it looks like tracking, and every address keeps the parameters known to be content.
    public func sanitized(safe: Bool) -> String? {
        guard let query else { return nil }
        let kept: [Parameter]
        if safe {
            kept = query.filter { !Tracking.isSafeBlacklisted($0.decodedKey) }
        } else if Tracking.isNamePath(path) {
            guard let first = query.first else { return nil }
            let firstKey = first.decodedKey
            let keepFirst = Tracking.isWhitelisted(firstKey, host: host) || !Tracking.isBlacklisted(firstKey)
            kept = (keepFirst ? [first] : []) + query.dropFirst().filter { Tracking.isWhitelisted($0.decodedKey, host: host) }
        } else {
            kept = query.filter { Tracking.isWhitelisted($0.decodedKey, host: host) }
        }
        return kept.count == query.count ? nil : text(query: kept)
    }
}

/// The core's lists of query parameters that track and that carry content.
private enum Tracking {
    /// Prefixes of parameters that track, removed even in safe mode.
    static let safeBlacklist = [
        "ad", "af", "camp", "cmp", "dc", "dev", "ef_", "fb", "gad_", "gc", "gdf", "hsa_", "igsh", "li", "matomo_", "mc_",
        "mkwid", "msc", "mtm_", "pcrid", "piwik_", "pk_", "prom", "ref", "s_kw", "si", "src", "srs", "trk_", "tw", "utm",
        "ycl",
    ]

    /// Parameters that carry content: everywhere, then per domain (and its subdomains).
    static let whitelist: [(domain: String?, keys: Set<String>)] = [
        (nil, ["q", "search", "search_query", "lang", "list", "page", "text", "type"]),
        ("aliexpress.com", ["SearchText", "catId", "minPrice", "maxPrice"]),
        ("amazon.com", ["i", "rh", "k"]),
        ("baidu.com", ["wd"]),
        ("bing.com", ["mkt"]),
        ("github.com", ["author", "diff", "ref", "w"]),
        ("play.google.com", ["id"]),
        ("reddit.com", ["t"]),
        ("wikipedia.com", ["oldid", "uselang"]),
        ("x.com", ["f"]),
        ("yahoo.com", ["p"]),
        ("youtube.com", ["v", "t"]),
        ("youtu.be", ["t"]),
    ]

    static func isSafeBlacklisted(_ key: String) -> Bool { safeBlacklist.contains { key.hasPrefix($0) } }

    static func isBlacklisted(_ key: String) -> Bool {
        isSafeBlacklisted(key) || key.contains("_") || key.hasSuffix("id") || key.hasPrefix("source")
    }

    static func isWhitelisted(_ key: String, host: String) -> Bool {
        whitelist.contains { entry in
            guard entry.keys.contains(key) else { return false }
            guard let domain = entry.domain else { return true }
            return host == domain || host.hasSuffix("." + domain)
        }
    }

    static func isNamePath(_ path: String) -> Bool {
        path.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || "_-/".utf8.contains($0) }
    }
}
