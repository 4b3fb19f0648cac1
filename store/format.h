// The constants of the on-disk format, all in one place. docs/format.md is the prose form of this
// header; format_doc_test.cpp parses that document's OFFSET/SIZE tables and compares every row with
// kLayout below, so the two cannot drift apart.
//
// All integers are little-endian and fixed width (endian.h). Sections named "docs/format.md: X"
// below refer to headings of that document.
//
// Thread-safety: constants only.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace xtfq::format {

// docs/format.md: "The file"
inline constexpr std::string_view kMagic = "XTFQSTOR";  // 8 bytes, no terminator
inline constexpr uint32_t kFormatVersion = 7;
// The oldest version this build reads: format 5 differs only in its columns codecs (2 and 4), which
// are still decoded, and an unframed catalogue; format 6 only in having no sole-process arrays. A
// writer's first commit makes such a store version 7.
inline constexpr uint32_t kOldestReadableVersion = 5;
inline constexpr uint32_t kMinPageSize = 4096;
inline constexpr uint32_t kMaxPageSize = 65536;
inline constexpr uint32_t kDefaultPageSize = 4096;
inline constexpr uint32_t kSuperblockSlots = 2;  // pages 0 and 1
inline constexpr uint32_t kFirstDataPage = 2;
inline constexpr uint32_t kMaxPages = 0xFFFFFFFFu;

// docs/format.md: "Readers beside a writer". A reader's lease on generation g is a shared
// byte-range lock (open file description lock) on the byte at kLeaseLockBase + g, far beyond any
// page (locks beyond the end of a file are allowed and change nothing in it).
inline constexpr uint64_t kLeaseLockBase = uint64_t{1} << 62;
// The writer's exclusive lock: a write lock on the byte just below the leases.
inline constexpr uint64_t kWriterLockByte = kLeaseLockBase - 1;

// docs/format.md: "Superblock"
inline constexpr uint32_t kSbMagic = 0;
inline constexpr uint32_t kSbVersion = 8;
inline constexpr uint32_t kSbPageSize = 12;
inline constexpr uint32_t kSbGeneration = 16;
inline constexpr uint32_t kSbPageCount = 24;
inline constexpr uint32_t kSbCatalogueHead = 28;
inline constexpr uint32_t kSbCataloguePages = 32;
inline constexpr uint32_t kSbCatalogueBytes = 36;
inline constexpr uint32_t kSbCommitTime = 40;
inline constexpr uint32_t kSbCodec = 48;
inline constexpr uint32_t kSbReserved = 49;
inline constexpr uint32_t kSbChecksum = 52;
inline constexpr uint32_t kSuperblockSize = 56;

// docs/format.md: "Page header"
inline constexpr uint32_t kPhChecksum = 0;
inline constexpr uint32_t kPhPageId = 4;
inline constexpr uint32_t kPhKind = 8;
inline constexpr uint32_t kPhLevel = 9;
inline constexpr uint32_t kPhFlags = 10;
inline constexpr uint32_t kPhCodec = 11;
inline constexpr uint32_t kPhArrayId = 12;
inline constexpr uint32_t kPhEntryCount = 16;
inline constexpr uint32_t kPhPrev = 20;
inline constexpr uint32_t kPhNext = 24;
inline constexpr uint32_t kPhLogicalId = 28;
inline constexpr uint32_t kPageHeaderSize = 32;

// Page flags (byte kPhFlags).
inline constexpr uint8_t kFlagShadow = 0x01;     // a committed copy of an open page
inline constexpr uint8_t kFlagRightEdge = 0x02;  // index shadow: the last entry covers the open page below
inline constexpr uint8_t kKnownFlags = kFlagShadow | kFlagRightEdge;

// Codecs (superblock byte kSbCodec, page header byte kPhCodec; docs/format.md, "Stored pages").
inline constexpr uint8_t kCodecNone = 0;
inline constexpr uint8_t kCodecLz4 = 1;
inline constexpr uint8_t kCodecLz4Columns = 2;  // a stored page's only: lz4 over the entries' columns
inline constexpr uint8_t kCodecZstd = 3;
inline constexpr uint8_t kCodecZstdColumns = 4;  // a stored page's only: zstd over the entries' columns
// Codecs 2 and 4 are format 5's, read and never written; format 6 writes codecs 5 and 6.
inline constexpr uint8_t kCodecLz4Typed = 5;   // a stored page's only: lz4 over the entries' typed columns
inline constexpr uint8_t kCodecZstdTyped = 6;  // a stored page's only: zstd over the entries' typed columns
inline constexpr uint8_t kMaxCodec = kCodecZstdTyped;
// The catalogue frame (format 6): the stored catalogue stream is u8 codec (0 none, 1 lz4, 3 zstd),
// u32 the catalogue's bytes before compression, then them, compressed.
inline constexpr uint32_t kFramedCatalogueVersion = 6;  // the first version whose catalogue is framed
inline constexpr uint32_t kCfCodec = 0;
inline constexpr uint32_t kCfRawBytes = 1;
inline constexpr uint32_t kCatalogueFrameSize = 5;
inline constexpr uint32_t kMaxCatalogueBytes = 1u << 30;  // a frame saying more is corrupt
// A typed columns body (codecs 5 and 6): u16 width, u16 runs, then 2 bytes per run, then the block.
inline constexpr uint32_t kSpWidth = 0;
inline constexpr uint32_t kSpRuns = 2;
inline constexpr uint32_t kSpRunList = 4;
// Whether `codec` may be a superblock's (the codecs a user chooses: none, lz4, zstd).
constexpr bool StoreCodec(uint8_t codec) { return codec == kCodecNone || codec == kCodecLz4 || codec == kCodecZstd; }

// docs/format.md: "Location" (a page map entry).
inline constexpr uint32_t kLocOffset = 0;
inline constexpr uint32_t kLocLength = 8;
inline constexpr uint32_t kLocationSize = 12;
// A packed Location (a u64): offset << 17 | (length - 1); 0 when not stored.
inline constexpr uint32_t kPackedLengthBits = 17;
inline constexpr uint64_t kMaxPackedOffset = (uint64_t{1} << (64 - kPackedLengthBits)) - 1;  // 128 TiB

// docs/format.md: "Catalogue header"
inline constexpr uint32_t kCatArrayCount = 0;
inline constexpr uint32_t kCatFreeCount = 4;
inline constexpr uint32_t kCatHeapChain = 8;
inline constexpr uint32_t kCatChainIds = 40;
inline constexpr uint32_t kCatMapCount = 44;
inline constexpr uint32_t kCatalogueHeaderSize = 48;

// docs/format.md: "Chain descriptor"
inline constexpr uint32_t kChHead = 0;
inline constexpr uint32_t kChLastFull = 4;
inline constexpr uint32_t kChOpen = 8;
inline constexpr uint32_t kChShadow = 12;
inline constexpr uint32_t kChEntries = 16;
inline constexpr uint32_t kChShadowLocation = 24;  // a packed Location: where the shadow is stored
inline constexpr uint32_t kChainSize = 32;

// docs/format.md: "Array descriptor"
inline constexpr uint32_t kArId = 0;
inline constexpr uint32_t kArNameLength = 4;
inline constexpr uint32_t kArFieldCount = 6;
inline constexpr uint32_t kArAggregateCount = 8;
inline constexpr uint32_t kArLevelCount = 10;
inline constexpr uint32_t kArTimeField = 12;
inline constexpr uint32_t kArProcessField = 14;
inline constexpr uint32_t kArParent = 16;
inline constexpr uint32_t kArFlags = 20;
inline constexpr uint32_t kArProcess = 24;
inline constexpr uint32_t kArProcessRoot = 32;
inline constexpr uint32_t kArProcessLevels = 36;
inline constexpr uint32_t kArReserved = 38;
inline constexpr uint32_t kArProcessRootLocation = 40;  // a packed Location: where the process tree's root is
inline constexpr uint32_t kArrayFixedSize = 48;
inline constexpr uint16_t kNoField = 0xFFFF;
// Array flags (kArFlags).
inline constexpr uint32_t kArrayProcessIndex = 0x1;  // per-process copies and a process tree are kept
// With kArrayProcessIndex (format 7): every record is of process `process`, and the process tree's
// one entry names the array itself instead of a copy.
inline constexpr uint32_t kArraySoleProcess = 0x2;
inline constexpr uint32_t kSoleProcessVersion = 7;  // the first version with sole-process arrays
inline constexpr uint32_t kKnownArrayFlags = kArrayProcessIndex | kArraySoleProcess;

// docs/format.md: "Index entry"
inline constexpr uint32_t kIeKey = 0;
inline constexpr uint32_t kIeCount = 8;
inline constexpr uint32_t kIeChildLocation = 16;  // a packed Location: where the child is stored
inline constexpr uint32_t kIeChild = 24;
inline constexpr uint32_t kIndexEntryFixedSize = 28;

// docs/format.md: "Field statistics"
inline constexpr uint32_t kFsSum = 0;
inline constexpr uint32_t kFsMin = 8;
inline constexpr uint32_t kFsMax = 16;
inline constexpr uint32_t kFsSumSq = 24;
inline constexpr uint32_t kFieldStatsSize = 32;

// docs/format.md: "Field descriptor"
inline constexpr uint32_t kFdType = 0;
inline constexpr uint32_t kFdNameLength = 1;
inline constexpr uint32_t kFieldFixedSize = 2;

// docs/format.md: "String heap"
inline constexpr uint32_t kStrLength = 0;
inline constexpr uint32_t kStringPrefixSize = 4;

// Limits a decoder enforces (docs/format.md: "Invariants").
inline constexpr uint32_t kMaxNameLength = 255;
inline constexpr uint32_t kMaxFields = 1024;
inline constexpr uint32_t kMaxLevels = 16;

// One row of an OFFSET/SIZE table of docs/format.md.
struct LayoutRow {
  std::string_view table;  // the heading of the table in docs/format.md
  std::string_view name;   // the field name, as written in backquotes in the document
  uint32_t offset;
  uint32_t size;
};

inline constexpr std::array kLayout = {
    LayoutRow{"Superblock", "magic", kSbMagic, 8},
    LayoutRow{"Superblock", "version", kSbVersion, 4},
    LayoutRow{"Superblock", "page_size", kSbPageSize, 4},
    LayoutRow{"Superblock", "generation", kSbGeneration, 8},
    LayoutRow{"Superblock", "page_count", kSbPageCount, 4},
    LayoutRow{"Superblock", "catalogue_head", kSbCatalogueHead, 4},
    LayoutRow{"Superblock", "catalogue_pages", kSbCataloguePages, 4},
    LayoutRow{"Superblock", "catalogue_bytes", kSbCatalogueBytes, 4},
    LayoutRow{"Superblock", "commit_time", kSbCommitTime, 8},
    LayoutRow{"Superblock", "codec", kSbCodec, 1},
    LayoutRow{"Superblock", "reserved", kSbReserved, 3},
    LayoutRow{"Superblock", "checksum", kSbChecksum, 4},
    LayoutRow{"Page header", "checksum", kPhChecksum, 4},
    LayoutRow{"Page header", "page_id", kPhPageId, 4},
    LayoutRow{"Page header", "kind", kPhKind, 1},
    LayoutRow{"Page header", "level", kPhLevel, 1},
    LayoutRow{"Page header", "flags", kPhFlags, 1},
    LayoutRow{"Page header", "codec", kPhCodec, 1},
    LayoutRow{"Page header", "array_id", kPhArrayId, 4},
    LayoutRow{"Page header", "entry_count", kPhEntryCount, 4},
    LayoutRow{"Page header", "prev", kPhPrev, 4},
    LayoutRow{"Page header", "next", kPhNext, 4},
    LayoutRow{"Page header", "logical_id", kPhLogicalId, 4},
    LayoutRow{"Catalogue header", "array_count", kCatArrayCount, 4},
    LayoutRow{"Catalogue header", "free_count", kCatFreeCount, 4},
    LayoutRow{"Catalogue header", "heap", kCatHeapChain, kChainSize},
    LayoutRow{"Catalogue header", "chain_ids", kCatChainIds, 4},
    LayoutRow{"Catalogue header", "map_count", kCatMapCount, 4},
    LayoutRow{"Location", "offset", kLocOffset, 8},
    LayoutRow{"Location", "length", kLocLength, 4},
    LayoutRow{"Chain descriptor", "head", kChHead, 4},
    LayoutRow{"Chain descriptor", "last_full", kChLastFull, 4},
    LayoutRow{"Chain descriptor", "open", kChOpen, 4},
    LayoutRow{"Chain descriptor", "shadow", kChShadow, 4},
    LayoutRow{"Chain descriptor", "entries", kChEntries, 8},
    LayoutRow{"Chain descriptor", "shadow_location", kChShadowLocation, 8},
    LayoutRow{"Array descriptor", "array_id", kArId, 4},
    LayoutRow{"Array descriptor", "name_length", kArNameLength, 2},
    LayoutRow{"Array descriptor", "field_count", kArFieldCount, 2},
    LayoutRow{"Array descriptor", "aggregate_count", kArAggregateCount, 2},
    LayoutRow{"Array descriptor", "level_count", kArLevelCount, 2},
    LayoutRow{"Array descriptor", "time_field", kArTimeField, 2},
    LayoutRow{"Array descriptor", "process_field", kArProcessField, 2},
    LayoutRow{"Array descriptor", "parent", kArParent, 4},
    LayoutRow{"Array descriptor", "flags", kArFlags, 4},
    LayoutRow{"Array descriptor", "process", kArProcess, 8},
    LayoutRow{"Array descriptor", "process_root", kArProcessRoot, 4},
    LayoutRow{"Array descriptor", "process_levels", kArProcessLevels, 2},
    LayoutRow{"Array descriptor", "reserved", kArReserved, 2},
    LayoutRow{"Array descriptor", "process_root_location", kArProcessRootLocation, 8},
    LayoutRow{"Catalogue frame", "codec", kCfCodec, 1},
    LayoutRow{"Catalogue frame", "raw_bytes", kCfRawBytes, 4},
    LayoutRow{"Stored pages", "width", kSpWidth, 2},
    LayoutRow{"Stored pages", "runs", kSpRuns, 2},
    LayoutRow{"Index entry", "key", kIeKey, 8},
    LayoutRow{"Index entry", "count", kIeCount, 8},
    LayoutRow{"Index entry", "child_location", kIeChildLocation, 8},
    LayoutRow{"Index entry", "child", kIeChild, 4},
    LayoutRow{"Field statistics", "sum", kFsSum, 8},
    LayoutRow{"Field statistics", "min", kFsMin, 8},
    LayoutRow{"Field statistics", "max", kFsMax, 8},
    LayoutRow{"Field statistics", "sumsq", kFsSumSq, 8},
    LayoutRow{"Field descriptor", "type", kFdType, 1},
    LayoutRow{"Field descriptor", "name_length", kFdNameLength, 1},
    LayoutRow{"String heap", "length", kStrLength, 4},
};

// Sizes of the fixed parts, checked against the document's "N bytes" statements.
inline constexpr std::array<std::pair<std::string_view, uint32_t>, 11> kFixedSizes = {{
    {"Catalogue frame", kCatalogueFrameSize},
    {"Location", kLocationSize},
    {"Superblock", kSuperblockSize},
    {"Page header", kPageHeaderSize},
    {"Catalogue header", kCatalogueHeaderSize},
    {"Chain descriptor", kChainSize},
    {"Array descriptor", kArrayFixedSize},
    {"Field descriptor", kFieldFixedSize},
    {"String heap", kStringPrefixSize},
    {"Index entry", kIndexEntryFixedSize},
    {"Field statistics", kFieldStatsSize},
}};

}  // namespace xtfq::format
