// The texts of client-go's errors, as a Go program that uses it prints them: the
// url.Error of a failed transport, apimachinery's generic message for a status without a
// Status body, and the Go quoting they use. ClientCallState::ErrorMessage puts them
// together; they are apart from it because they are wording, not the call's states.
// Tested through tests/sim/clients/client_call_test.cc's error messages.
#ifndef SIM_CLIENTS_CLIENT_ERROR_TEXT_H_
#define SIM_CLIENTS_CLIENT_ERROR_TEXT_H_

#include <string>
#include <string_view>

#include "sim/clients/client_call.h"

namespace sim {

// The part of url.Error's text after "Op \"url\": ", as net/http and x/net/http2 word
// these failures. Addresses are left out: the simulation has none.
const char* TransportErrorText(TransportError error);

// url.Error.Op: the method with only its first letter upper case (net/http urlErrorOp).
const char* UrlErrorOp(HttpMethod method);

// Go's %q (strconv.Quote) for the ASCII the simulation produces; other bytes are copied.
std::string GoQuote(std::string_view s);

// Go's strings.TrimSpace for ASCII white space.
std::string_view TrimSpace(std::string_view s);

// apimachinery errors.NewGenericServerResponse(...).Error(): the message chosen by
// status code, then " (<verb> <resource.group>[ <name>])" when the resource is known.
std::string GenericServerResponseMessage(int code, HttpMethod method,
                                         const RequestDescription& request,
                                         std::string_view server_message);

}  // namespace sim

#endif  // SIM_CLIENTS_CLIENT_ERROR_TEXT_H_
