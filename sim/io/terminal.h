// Whether apfsim's output goes to a person at a terminal: the one place that decides
// colour (honouring NO_COLOR, https://no-color.org: set and not empty turns colour off
// everywhere) and whether a live progress line can be redrawn in place. Every command asks
// here instead of calling isatty itself. Tested by tests/sim/io/terminal_test.cc.
#ifndef SIM_IO_TERMINAL_H_
#define SIM_IO_TERMINAL_H_

namespace sim {

// Whether the file descriptor is a terminal.
bool IsTerminal(int fd);

// Whether NO_COLOR asks for no colour: the variable is set to a non-empty value.
bool NoColorRequested(const char* no_color_value);

// Whether output written to `fd` may carry ANSI colour: a terminal, and NO_COLOR not set.
bool ColourWanted(int fd);

}  // namespace sim

#endif  // SIM_IO_TERMINAL_H_
