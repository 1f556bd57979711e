#include "sim/clients/client_error_text.h"

#include <cstdio>

namespace sim {

const char* TransportErrorText(TransportError error) {
  switch (error) {
    case TransportError::kConnectionReset:
      return "read: connection reset by peer";
    case TransportError::kEOF:
      return "EOF";
    case TransportError::kGoAway:
      return "http2: server sent GOAWAY and closed the connection";
    case TransportError::kHttp2ConnectionLost:
      return "http2: client connection lost";
    case TransportError::kConnectionRefused:
      return "dial tcp: connect: connection refused";
    case TransportError::kClientTimeout:
      return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
    case TransportError::kContextDeadline:
      return "context deadline exceeded";
    case TransportError::kContextCanceled:
      return "context canceled";
  }
  return "";
}

const char* UrlErrorOp(HttpMethod method) {
  switch (method) {
    case HttpMethod::kGet:
      return "Get";
    case HttpMethod::kPost:
      return "Post";
    case HttpMethod::kPut:
      return "Put";
    case HttpMethod::kPatch:
      return "Patch";
    case HttpMethod::kDelete:
      return "Delete";
  }
  return "";
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  const char* kSpace = " \t\n\r\v\f";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

std::string GenericServerResponseMessage(int code, HttpMethod method,
                                         const RequestDescription& request,
                                         std::string_view server_message) {
  std::string message;
  switch (code) {
    case 409:
      message = "the server reported a conflict";
      break;
    case 404:
      message = "the server could not find the requested resource";
      break;
    case 400:
      message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      message = std::string(server_message);
      break;
    case 406:
      if (server_message.empty() || server_message == "unknown") {
        message = "the server was unable to respond with a content type that the client supports";
      } else {
        message = std::string(server_message);
      }
      break;
    case 415:
      message = std::string(server_message);
      break;
    case 405:
      message = "the server does not allow this method on the requested resource";
      break;
    case 422:
      message = "the server rejected our request due to an error in our request";
      break;
    case 503:
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      message =
          "the server was unable to return a response in the time allotted, but may still be "
          "processing the request";
      break;
    case 429:
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (code >= 500) {
        message = "an error on the server (" + GoQuote(server_message) +
                  ") has prevented the request from succeeding";
      } else {
        message = "the server responded with the status code " + std::to_string(code) +
                  " but did not return more information";
      }
  }
  if (!request.resource.empty()) {
    std::string verb = HttpMethodName(method);
    for (char& c : verb) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    message.append(" (").append(verb).append(" ").append(request.resource);
    if (!request.group.empty()) message.append(".").append(request.group);
    if (!request.name.empty()) message.append(" ").append(request.name);
    message.append(")");
  }
  return message;
}

}  // namespace sim
