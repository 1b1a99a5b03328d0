#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <microhttpd.h>

/// MHD_start_daemon is variadic, which Swift cannot call. Every option goes
/// through MHD_OPTION_ARRAY instead, so one fixed signature serves all uses.
static inline struct MHD_Daemon *uptake_mhd_start(
    unsigned int flags, uint16_t port, MHD_AccessHandlerCallback handler,
    void *handler_cls, struct MHD_OptionItem *options) {
  return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                          MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon really bound, for `--listen HOST:0`.
static inline uint16_t uptake_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info =
      MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/// The client's address as text (IPv4 dotted or IPv6), written into `buffer`
/// of `size` bytes (INET6_ADDRSTRLEN suffices); returns 0 when unknown.
/// MHD_get_connection_info is variadic too, hence this wrapper.
static inline int uptake_mhd_client_address(struct MHD_Connection *connection,
                                            char *buffer, size_t size) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL || size == 0) return 0;
  const struct sockaddr *address = info->client_addr;
  const void *bytes;
  if (address->sa_family == AF_INET) {
    bytes = &((const struct sockaddr_in *)address)->sin_addr;
  } else if (address->sa_family == AF_INET6) {
    bytes = &((const struct sockaddr_in6 *)address)->sin6_addr;
  } else {
    return 0;
  }
  return inet_ntop(address->sa_family, bytes, buffer, (socklen_t)size) != NULL;
}

/// A new file in `directory` with no name, open for reading and writing,
/// mode 0600 (Linux's O_TMPFILE); -1 where the file system cannot make
/// one. glibc defines O_TMPFILE only under _GNU_SOURCE, and defining that
/// here changes system types other modules share (fd_set), so the flag is
/// spelled out: __O_TMPFILE is 020000000 on every architecture Debian's
/// Swift runs on (x86-64, arm64: the kernel's generic value).
static inline int uptake_open_nameless(const char *directory) {
#if defined(__linux__)
#if defined(O_TMPFILE)
  int flags = O_TMPFILE;
#else
  int flags = 020000000 | O_DIRECTORY;
#endif
  return open(directory, flags | O_RDWR | O_CLOEXEC, 0600);
#else
  (void)directory;
  return -1;
#endif
}
