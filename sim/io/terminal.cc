#include "sim/io/terminal.h"

#include <unistd.h>

#include <cstdlib>

namespace sim {

bool IsTerminal(int fd) { return ::isatty(fd) == 1; }

bool NoColorRequested(const char* no_color_value) {
  return no_color_value != nullptr && no_color_value[0] != '\0';
}

bool ColourWanted(int fd) { return IsTerminal(fd) && !NoColorRequested(std::getenv("NO_COLOR")); }

}  // namespace sim
