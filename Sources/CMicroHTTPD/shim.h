#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
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
