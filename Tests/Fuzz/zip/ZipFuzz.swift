// The zip reader (SimplexArchive): an archive never traps; what it extracts has the declared size, a safe path has
// no component that leaves its folder, and the entries written again by the writer read back as the same
// names and bytes.
import SimplexArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let reader = try? ZipReader(source: MemoryZipSource(fuzzBytes(data, size))) else { return 0 }
    var extracted: [(name: String, bytes: [UInt8])] = []
    for entry in reader.entries.prefix(64) {
        if let path = try? entry.safePath() {
            invariant(!path.contains { $0.isEmpty || $0 == "." || $0 == ".." || $0.contains("/") }, "unsafe path \(path)")
        }
        let sink = MemoryZipSink()
        guard (try? reader.extract(entry, to: sink)) != nil else { continue }
        invariant(UInt64(sink.bytes.count) == entry.uncompressedSize, "\(entry.name): \(sink.bytes.count) bytes extracted")
        if !entry.isDirectory, (try? entry.safePath()) != nil { extracted.append((entry.name, sink.bytes)) }
    }
    rewrite(extracted)
    return 0
}

private func rewrite(_ entries: [(name: String, bytes: [UInt8])]) {
    guard !entries.isEmpty else { return }
    let sink = MemoryZipSink()
    let writer = ZipWriter(sink: sink)
    do {
        for (i, entry) in entries.enumerated() {
            let method: ZipWriter.Method = i % 2 == 0 ? .deflated : .stored
            try writer.beginEntry(
                name: entry.name, method: method, modified: DOSTimestamp(secondsSince1970: 0), expectedSize: nil)
            try writer.write(entry.bytes)
            try writer.endEntry()
        }
        try writer.finish()
    } catch {
        return  // names the writer refuses (duplicates, lengths) are not the reader's concern
    }
    let again: ZipReader
    do { again = try ZipReader(source: MemoryZipSource(sink.bytes)) } catch {
        invariant(false, "the writer's archive of \(entries.map(\.name)) does not read: \(error)")
        return
    }
    invariant(
        again.entries.map(\.name) == entries.map(\.name),
        "names \(again.entries.map(\.name)) after writing \(entries.map(\.name))")
    for (entry, original) in zip(again.entries, entries) {
        let out = MemoryZipSink()
        do { try again.extract(entry, to: out) } catch {
            invariant(false, "\(entry.name) written by the writer does not extract: \(error)")
        }
        invariant(out.bytes == original.bytes, "\(entry.name) extracts as other bytes after writing")
    }
}
