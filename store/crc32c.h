// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every page and superblock.
//
// Crc32c() uses the SSE4.2 crc32 instruction where the CPU has it and Boost.CRC's table otherwise;
// both give the same value (crc32c_test.cpp checks them against each other and against the
// standard check value 0xE3069283 for "123456789").
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace xtfq {

uint32_t Crc32c(std::span<const std::byte> data);

// The portable implementation, exposed for tests.
uint32_t Crc32cPortable(std::span<const std::byte> data);

// True when Crc32c() runs on the hardware instruction.
bool Crc32cHardware();

}  // namespace xtfq
