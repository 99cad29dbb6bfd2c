!> ftla.f90 -- Fortran module `ftla`: iso_c_binding interfaces to the whole ftla C API
!> (include/ftla.h; docs/fortran.md).
!>
!> Installed next to ftla.h, with the compiled module (ftla.mod, gfortran) and its procedures in
!> the library ftla_fortran (CMake: ftla::ftla_fortran; pkg-config: ftla-fortran). With another
!> compiler, compile this file with your program and link ftla.
!> Conventions, as in the C API:
!>   * column-major arrays, LAPACK argument order; dimensions are integer(ft_int) = integer(c_int)
!>     (LP64: the default INTEGER of gfortran/ifx without -fdefault-integer-8 / -i8);
!>   * character arguments (TRANSA, SIDE, ...) are single characters passed by value;
!>   * every routine is a function returning an integer(c_int) status: 0 = success,
!>     -i = argument i illegal (reported by ft_xerbla, nothing computed), <= -1000 = FT_ERR_*;
!>     ftla_strerror(status) gives its text; INFO arguments are optional and repeat the status;
!>   * device pointers (_gpu routines, streams) and opaque objects (contexts, FT factors) are
!>     type(c_ptr); c_null_ptr as a context means the calling thread's default context;
!>   * 0-based row/column/step indices in ft_fault_t, ft_event_t and ft_span_t (as in C);
!>   * the versioned structures (ft_policy_t, ft_report_t) are passed with this module's size of
!>     them (the _v functions; the wrappers without _v do it for you).
!>
!> The drop-in routines FT_DGEMM / FT_DGEQRF (BLAS DGEMM's and LAPACK DGEQRF's exact argument
!> lists; symbols ft_dgemm_ / ft_dgeqrf_) are external subroutines, not part of this module: in a
!> scope that uses the module, the names ft_dgemm and ft_dgeqrf are the module's C-API functions.
!> Call the drop-in routines from a scope without `use ftla` (or with an only-list without those
!> names), or rename on use (gfortran 12 then warns "'ft_dgemm' is not a function", harmlessly):
!>     use ftla, capi_dgemm => ft_dgemm, capi_dgeqrf => ft_dgeqrf
!>     call ft_dgemm('N', 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)   ! drop-in
!> Binding labels and external procedure names are one set of global identifiers in a Fortran
!> program (F2018 19.2, compared ignoring case): an interface bound to 'ft_dgemm' would clash with
!> the drop-in FT_DGEMM. So this module binds its ft_dgemm, ft_dgeqrf and ft_last_status to other
!> C symbols with the same behaviour (ftla_f90_dgemm, ftla_f90_dgeqrf, ft_last_status_).
module ftla
    use, intrinsic :: iso_c_binding
    implicit none

    !> Kind of dimensions and leading dimensions (ft_int in C).
    integer, parameter :: ft_int = c_int

    ! ---- version of ftla.h this module mirrors --------------------------------------------------
    integer(c_int), parameter :: FTLA_VERSION_MAJOR = 0
    integer(c_int), parameter :: FTLA_VERSION_MINOR = 1
    integer(c_int), parameter :: FTLA_VERSION_PATCH = 0

    ! ---- status codes (ft_status_t) ------------------------------------------------------------
    integer(c_int), parameter :: FT_SUCCESS = 0
    integer(c_int), parameter :: FT_ERR_ALLOC = -1001
    integer(c_int), parameter :: FT_ERR_DEVICE_ALLOC = -1002
    integer(c_int), parameter :: FT_ERR_CUDA = -1003
    integer(c_int), parameter :: FT_ERR_CUBLAS = -1004
    integer(c_int), parameter :: FT_ERR_NO_DEVICE = -1005
    integer(c_int), parameter :: FT_ERR_NOT_BUILT = -1006
    integer(c_int), parameter :: FT_ERR_UNCORRECTABLE = -1007
    integer(c_int), parameter :: FT_ERR_NOT_RECOVERED = -1008
    integer(c_int), parameter :: FT_ERR_LAPACK = -1009
    integer(c_int), parameter :: FT_ERR_INVALID_VALUE = -1010
    integer(c_int), parameter :: FT_ERR_TOO_LARGE = -1011
    integer(c_int), parameter :: FT_ERR_INTERNAL = -1012
    integer(c_int), parameter :: FT_ERR_UNCHECKED = -1013

    ! ---- devices (ft_device_t) -----------------------------------------------------------------
    integer(c_int), parameter :: FT_DEVICE_AUTO = 0
    integer(c_int), parameter :: FT_DEVICE_CPU = 1
    integer(c_int), parameter :: FT_DEVICE_CUDA = 2

    ! ---- panel placement of ft_dgeqrf (ft_panel_t, policy%panel) -------------------------------
    integer(c_int), parameter :: FT_PANEL_AUTO = 0
    integer(c_int), parameter :: FT_PANEL_CPU = 1
    integer(c_int), parameter :: FT_PANEL_GPU = 2

    ! ---- protection mode (ft_protect_t, policy%protect) -----------------------------------------
    integer(c_int), parameter :: FT_PROTECT_OFF = 0
    integer(c_int), parameter :: FT_PROTECT_ABFT = 1
    integer(c_int), parameter :: FT_PROTECT_TMR = 2

    ! ---- fault-injection regions (ft_region_t) -------------------------------------------------
    integer(c_int), parameter :: FT_REGION_C = 0
    integer(c_int), parameter :: FT_REGION_A = 1
    integer(c_int), parameter :: FT_REGION_B = 2
    integer(c_int), parameter :: FT_REGION_CHECKSUM = 3
    integer(c_int), parameter :: FT_REGION_R = 4
    integer(c_int), parameter :: FT_REGION_TRAILING = 5
    integer(c_int), parameter :: FT_REGION_Q = 6
    integer(c_int), parameter :: FT_REGION_TAU = 7
    integer(c_int), parameter :: FT_REGION_REFLECTORS = 8
    integer(c_int), parameter :: FT_REGION_PANEL = 9

    ! ---- report events (ft_event_kind_t) -------------------------------------------------------
    integer(c_int), parameter :: FT_EVENT_INJECTED = 0
    integer(c_int), parameter :: FT_EVENT_CORRECTED = 1
    integer(c_int), parameter :: FT_EVENT_RECOMPUTED = 2
    integer(c_int), parameter :: FT_EVENT_CHECKSUM = 3
    integer(c_int), parameter :: FT_EVENT_UNCORRECTABLE = 4
    integer(c_int), parameter :: FT_EVENT_LOCATED = 5
    integer(c_int), parameter :: FT_EVENT_RECOVERED = 6

    integer(c_int), parameter :: FT_REPORT_MAX_EVENTS = 64

    ! ---- timeline lanes and phases (ft_lane_t, ft_phase_t) -------------------------------------
    integer(c_int), parameter :: FT_LANE_HOST = 0
    integer(c_int), parameter :: FT_LANE_MAIN = 1
    integer(c_int), parameter :: FT_LANE_SIDE = 2
    integer(c_int), parameter :: FT_LANE_CHECK = 3
    integer(c_int), parameter :: FT_LANE_COPY_OUT = 4
    integer(c_int), parameter :: FT_NLANES = 5
    integer(c_int), parameter :: FT_PHASE_ENCODE = 0
    integer(c_int), parameter :: FT_PHASE_PANEL = 1
    integer(c_int), parameter :: FT_PHASE_LOOKAHEAD = 2
    integer(c_int), parameter :: FT_PHASE_UPDATE = 3
    integer(c_int), parameter :: FT_PHASE_CHECKSUM = 4
    integer(c_int), parameter :: FT_PHASE_ARRIVE = 5
    integer(c_int), parameter :: FT_PHASE_CHECKPOINT = 6
    integer(c_int), parameter :: FT_PHASE_AFTER = 7
    integer(c_int), parameter :: FT_PHASE_COPY = 8
    integer(c_int), parameter :: FT_PHASE_WAIT = 9
    integer(c_int), parameter :: FT_PHASE_CHECKS = 10
    integer(c_int), parameter :: FT_PHASE_ISSUE = 11
    integer(c_int), parameter :: FT_PHASE_SEAL = 12
    integer(c_int), parameter :: FT_PHASE_VERIFY = 13
    integer(c_int), parameter :: FT_PHASE_STAGE = 14
    integer(c_int), parameter :: FT_PHASE_RECOVER = 15
    integer(c_int), parameter :: FT_NPHASES = 16

    ! ---- sizes of the first versions of the versioned structures (ftla.h, "ABI stability") ------
    integer(c_size_t), parameter :: FT_POLICY_SIZE_V1 = 40
    integer(c_size_t), parameter :: FT_REPORT_SIZE_V1 = 104 + FT_REPORT_MAX_EVENTS*48

    ! ---- structures: the C structs field by field, same order and types (enums are C int) ------

    !> ft_policy_t: protection policy. Get it (ft_context_get_policy), change fields, set it back.
    type, bind(C) :: ft_policy_t
        integer(c_int) :: protect       !< 1 = ABFT on (default), 0 = off
        integer(c_int) :: tile          !< ft_dgemm verification tile; 0 = automatic
        real(c_double) :: tol           !< threshold safety factor; 0 = 2.0
        integer(c_int) :: backup_c      !< ft_dgemm backup of C: -1 automatic, 0 never, 1 always
        integer(c_int) :: nb            !< ft_dgeqrf block size; 0 = automatic
        integer(c_int) :: verify_every  !< ft_dgeqrf online verification every q panels; 0 = end
        integer(c_int) :: crossover     !< ft_dgeqrf: min(m,n) <= crossover > 0: LAPACK, unchecked
        integer(c_int) :: verbose       !< 0, 1 or 2
        integer(c_int) :: serial_encode !< ft_dgemm on CUDA: 1 = encode before the product
        integer(c_int) :: operand_check !< ft_dgemm: 0 default (on), 1 on, -1 off
        integer(c_int) :: keep_input    !< ft_dgeqrf input kept for recovery: 0 auto, 1 host,
                                        !< 2 device, -1 none
        integer(c_int) :: protect_q     !< ft_dgeqrf checkpoint of Q, panel checks: 0/1 on, -1 off
        integer(c_int) :: panel         !< ft_dgeqrf panel placement: FT_PANEL_*
        real(c_double) :: error_rate    !< ft_dgeqrf expected soft errors per second (0: not given)
        real(c_double) :: gpu_memory    !< ft_dgemm host data: work memory limit, bytes (0: default)
    end type ft_policy_t

    !> ft_fault_t: one planned fault (row/col/call/step = -1: random / next call).
    type, bind(C) :: ft_fault_t
        integer(c_int) :: region = FT_REGION_C
        integer(c_int64_t) :: row = -1, col = -1
        integer(c_int) :: bit = -1           !< 0..63, or -1 = add `value`
        real(c_double) :: value = 0.0_c_double
        integer(c_int64_t) :: call = -1
        integer(c_int64_t) :: step = -1
    end type ft_fault_t

    !> ft_event_t: one event of a report.
    type, bind(C) :: ft_event_t
        integer(c_int) :: kind           !< FT_EVENT_*
        integer(c_int) :: region         !< FT_REGION_*
        integer(c_int64_t) :: row, col   !< 0-based element, -1 when unknown
        integer(c_int64_t) :: step       !< QR panel step, or dgemm tile index
        real(c_double) :: before, after
    end type ft_event_t

    !> ft_report_t: what happened in one _ex call.
    type, bind(C) :: ft_report_t
        integer(c_int) :: backend        !< FT_DEVICE_CPU or FT_DEVICE_CUDA
        integer(c_int) :: status
        integer(c_int64_t) :: injected, detected, located, corrected, uncorrectable
        integer(c_int64_t) :: checksum_errors, recomputed, unchecked, checks
        real(c_double) :: time_total, time_protect
        integer(c_int) :: nevents
        type(ft_event_t) :: events(FT_REPORT_MAX_EVENTS)
        ! later fields (ft_dgeqrf recovery, docs/recovery.md)
        integer(c_int) :: recovery       !< 0 none, 1 QR update, 2 re-factorization, 3 both
        integer(c_int64_t) :: recovered  !< propagated errors recovered
        integer(c_int64_t) :: refactor_col !< first column re-factored, else -1
        real(c_double) :: refactor_flops
        real(c_double) :: time_recovery
    end type ft_report_t

    !> ft_qr_model_t: what the performance model predicts and chooses (ft_dgeqrf_model).
    type, bind(C) :: ft_qr_model_t
        real(c_double) :: seconds
        integer(c_int) :: panel          !< FT_PANEL_CPU or FT_PANEL_GPU
        integer(c_int) :: nb
        integer(c_int) :: lookahead
        integer(c_int) :: verify_every
        real(c_double) :: seconds_depth0
        real(c_double) :: seconds_cpu
        real(c_double) :: seconds_gpu
        integer(c_int) :: nb_cpu, nb_gpu
        real(c_double) :: verify_seconds
        integer(c_int) :: source         !< 1 measured now, 2 cache file, 3 this process's memory
        real(c_double) :: calib_seconds
        character(kind=c_char) :: device(96) !< NUL-terminated (ftla_string)
        character(kind=c_char) :: cache(256) !< NUL-terminated (ftla_string)
    end type ft_qr_model_t

    !> ft_span_t: one span of a call's timeline.
    type, bind(C) :: ft_span_t
        integer(c_int) :: lane, phase
        integer(c_int64_t) :: step
        real(c_double) :: t0, t1
    end type ft_span_t

    !> ft_trace_t: the caller's buffer for a timeline. spans = c_loc of a TARGET array of
    !> ft_span_t with `capacity` elements; the trace and the array must stay alive (and in place)
    !> while the trace is set (ft_context_set_trace takes c_loc of a TARGET ft_trace_t).
    type, bind(C) :: ft_trace_t
        type(c_ptr) :: spans = c_null_ptr
        integer(c_int64_t) :: capacity = 0
        integer(c_int64_t) :: count = 0, dropped = 0
        real(c_double) :: total = 0.0_c_double
    end type ft_trace_t

    ! ---- the C functions -----------------------------------------------------------------------
    interface
        ! -- status, version, build --------------------------------------------------------------

        !> Text of a status code, as a C string (ftla_strerror gives a Fortran string).
        function ft_strerror(status) result(text) bind(C, name='ft_strerror')
            import :: c_ptr, c_int
            integer(c_int), value :: status
            type(c_ptr) :: text
        end function ft_strerror

        !> Version of the library that runs (each argument optional).
        subroutine ft_version(major, minor, patch) bind(C, name='ft_version')
            import :: c_int
            integer(c_int), intent(out), optional :: major, minor, patch
        end subroutine ft_version

        !> 1 when this build of ftla includes the CUDA backend, else 0.
        function ft_have_cuda() result(yes) bind(C, name='ft_have_cuda')
            import :: c_int
            integer(c_int) :: yes
        end function ft_have_cuda

        !> 1 when the CUDA backend is built and a device can be used now, else 0.
        function ft_cuda_available() result(yes) bind(C, name='ft_cuda_available')
            import :: c_int
            integer(c_int) :: yes
        end function ft_cuda_available

        ! -- errors ------------------------------------------------------------------------------

        !> Report argument `info` of routine srname (a NUL-terminated name: 'NAME'//c_null_char)
        !> through the installed handler.
        subroutine ft_xerbla(srname, info) bind(C, name='ft_xerbla')
            import :: c_char, c_int
            character(kind=c_char), intent(in) :: srname(*)
            integer(c_int), value :: info
        end subroutine ft_xerbla

        !> Install an argument-error handler (c_funloc of a bind(C) subroutine h(srname, info)
        !> with type(c_ptr), value :: srname (a C string: ftla_string) and integer(c_int), value
        !> :: info); c_null_funptr restores the default. Returns the previous handler
        !> (c_null_funptr for the default).
        function ft_set_xerbla(handler) result(previous) bind(C, name='ft_set_xerbla')
            import :: c_funptr
            type(c_funptr), value :: handler
            type(c_funptr) :: previous
        end function ft_set_xerbla

        !> Status of the calling thread's last drop-in call (FT_DGEMM / FT_DGEQRF).
        function ft_last_status() result(status) bind(C, name='ft_last_status_')
            import :: c_int
            integer(c_int) :: status
        end function ft_last_status

        ! -- contexts and policy ------------------------------------------------------------------

        !> Create a context for device FT_DEVICE_AUTO / _CPU / _CUDA.
        function ft_context_create(ctx, device) result(status) bind(C, name='ft_context_create')
            import :: c_ptr, c_int
            type(c_ptr), intent(out) :: ctx
            integer(c_int), value :: device
            integer(c_int) :: status
        end function ft_context_create

        function ft_context_destroy(ctx) result(status) bind(C, name='ft_context_destroy')
            import :: c_ptr, c_int
            type(c_ptr), value :: ctx
            integer(c_int) :: status
        end function ft_context_destroy

        !> Use the caller's CUDA stream (a cudaStream_t as type(c_ptr)); c_null_ptr = own.
        function ft_context_set_stream(ctx, stream) result(status) &
            bind(C, name='ft_context_set_stream')
            import :: c_ptr, c_int
            type(c_ptr), value :: ctx, stream
            integer(c_int) :: status
        end function ft_context_set_stream

        !> The sized functions behind ft_context_get_policy / ft_context_set_policy (below).
        function ft_context_get_policy_v(ctx, policy, size) result(status) &
            bind(C, name='ft_context_get_policy_v')
            import :: c_ptr, c_int, c_size_t, ft_policy_t
            type(c_ptr), value :: ctx
            type(ft_policy_t), intent(inout) :: policy
            integer(c_size_t), value :: size
            integer(c_int) :: status
        end function ft_context_get_policy_v

        function ft_context_set_policy_v(ctx, policy, size) result(status) &
            bind(C, name='ft_context_set_policy_v')
            import :: c_ptr, c_int, c_size_t, ft_policy_t
            type(c_ptr), value :: ctx
            type(ft_policy_t), intent(in) :: policy
            integer(c_size_t), value :: size
            integer(c_int) :: status
        end function ft_context_set_policy_v

        !> The device requested for the context (FT_DEVICE_*).
        function ft_context_device(ctx) result(device) bind(C, name='ft_context_device')
            import :: c_ptr, c_int
            type(c_ptr), value :: ctx
            integer(c_int) :: device
        end function ft_context_device

        !> The calling thread's default context (configured from FTLA_*); do not destroy it.
        function ft_default_context() result(ctx) bind(C, name='ft_default_context')
            import :: c_ptr
            type(c_ptr) :: ctx
        end function ft_default_context

        ! -- fault injection ----------------------------------------------------------------------

        function ft_inject_add(ctx, fault) result(status) bind(C, name='ft_inject_add')
            import :: c_ptr, c_int, ft_fault_t
            type(c_ptr), value :: ctx
            type(ft_fault_t), intent(in) :: fault
            integer(c_int) :: status
        end function ft_inject_add

        function ft_inject_clear(ctx) result(status) bind(C, name='ft_inject_clear')
            import :: c_ptr, c_int
            type(c_ptr), value :: ctx
            integer(c_int) :: status
        end function ft_inject_clear

        !> Seed of the fault-position generator (a uint64_t in C; same bits).
        function ft_inject_seed(ctx, seed) result(status) bind(C, name='ft_inject_seed')
            import :: c_ptr, c_int, c_int64_t
            type(c_ptr), value :: ctx
            integer(c_int64_t), value :: seed
            integer(c_int) :: status
        end function ft_inject_seed

        ! -- reports ------------------------------------------------------------------------------

        !> One-line summary of a report into buf(len) (NUL-terminated); ftla_report_string gives
        !> a Fortran string.
        function ft_report_string_v(report, size, buf, len) result(p) &
            bind(C, name='ft_report_string_v')
            import :: c_ptr, c_char, c_size_t, ft_report_t
            type(ft_report_t), intent(in) :: report
            integer(c_size_t), value :: size
            character(kind=c_char), intent(out) :: buf(*)
            integer(c_size_t), value :: len
            type(c_ptr) :: p
        end function ft_report_string_v

        ! -- ft_dgemm -----------------------------------------------------------------------------

        !> C := alpha*op(A)*op(B) + beta*C with ABFT protection, on the default context.
        function ft_dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) &
            result(status) bind(C, name='ftla_f90_dgemm')
            import :: c_char, c_int, c_double
            character(kind=c_char), value :: transa, transb
            integer(c_int), value :: m, n, k, lda, ldb, ldc
            real(c_double), value :: alpha, beta
            real(c_double), intent(in) :: a(lda, *), b(ldb, *)
            real(c_double), intent(inout) :: c(ldc, *)
            integer(c_int) :: status
        end function ft_dgemm

        !> The sized function behind ft_dgemm_ex (below).
        function ft_dgemm_ex_v(ctx, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                               ldc, report, report_size) result(status) &
            bind(C, name='ft_dgemm_ex_v')
            import :: c_ptr, c_char, c_int, c_double, c_size_t, ft_report_t
            type(c_ptr), value :: ctx
            character(kind=c_char), value :: transa, transb
            integer(c_int), value :: m, n, k, lda, ldb, ldc
            real(c_double), value :: alpha, beta
            real(c_double), intent(in) :: a(lda, *), b(ldb, *)
            real(c_double), intent(inout) :: c(ldc, *)
            type(ft_report_t), intent(inout), optional :: report
            integer(c_size_t), value :: report_size
            integer(c_int) :: status
        end function ft_dgemm_ex_v

        !> ft_dgemm on device pointers (CUDA builds; e.g. from CUDA Fortran or OpenACC host_data).
        function ft_dgemm_gpu(transa, transb, m, n, k, alpha, da, lda, db, ldb, beta, dc, ldc) &
            result(status) bind(C, name='ft_dgemm_gpu')
            import :: c_ptr, c_char, c_int, c_double
            character(kind=c_char), value :: transa, transb
            integer(c_int), value :: m, n, k, lda, ldb, ldc
            real(c_double), value :: alpha, beta
            type(c_ptr), value :: da, db, dc
            integer(c_int) :: status
        end function ft_dgemm_gpu

        !> The sized function behind ft_dgemm_gpu_ex (below).
        function ft_dgemm_gpu_ex_v(ctx, transa, transb, m, n, k, alpha, da, lda, db, ldb, beta, &
                                   dc, ldc, report, report_size) result(status) &
            bind(C, name='ft_dgemm_gpu_ex_v')
            import :: c_ptr, c_char, c_int, c_double, c_size_t, ft_report_t
            type(c_ptr), value :: ctx
            character(kind=c_char), value :: transa, transb
            integer(c_int), value :: m, n, k, lda, ldb, ldc
            real(c_double), value :: alpha, beta
            type(c_ptr), value :: da, db, dc
            type(ft_report_t), intent(inout), optional :: report
            integer(c_size_t), value :: report_size
            integer(c_int) :: status
        end function ft_dgemm_gpu_ex_v

        ! -- ft_dgeqrf ----------------------------------------------------------------------------

        !> QR factorization with checksum protection, LAPACK DGEQRF's arguments and output, on the
        !> default context (lwork = -1: workspace query into work(1)).
        function ft_dgeqrf(m, n, a, lda, tau, work, lwork, info) result(status) &
            bind(C, name='ftla_f90_dgeqrf')
            import :: c_int, c_double
            integer(c_int), value :: m, n, lda, lwork
            real(c_double), intent(inout) :: a(lda, *)
            real(c_double), intent(out) :: tau(*)
            real(c_double), intent(inout) :: work(*)
            integer(c_int), intent(out), optional :: info
            integer(c_int) :: status
        end function ft_dgeqrf

        !> The sized function behind ft_dgeqrf_ex (below).
        function ft_dgeqrf_ex_v(ctx, m, n, a, lda, tau, work, lwork, info, report, &
                                report_size) result(status) bind(C, name='ft_dgeqrf_ex_v')
            import :: c_ptr, c_int, c_double, c_size_t, ft_report_t
            type(c_ptr), value :: ctx
            integer(c_int), value :: m, n, lda, lwork
            real(c_double), intent(inout) :: a(lda, *)
            real(c_double), intent(out) :: tau(*)
            real(c_double), intent(inout) :: work(*)
            integer(c_int), intent(out), optional :: info
            type(ft_report_t), intent(inout), optional :: report
            integer(c_size_t), value :: report_size
            integer(c_int) :: status
        end function ft_dgeqrf_ex_v

        !> Device-pointer variant: da in GPU memory, tau on the host.
        function ft_dgeqrf_gpu(m, n, da, ldda, tau, info) result(status) &
            bind(C, name='ft_dgeqrf_gpu')
            import :: c_ptr, c_int, c_double
            integer(c_int), value :: m, n, ldda
            type(c_ptr), value :: da
            real(c_double), intent(out) :: tau(*)
            integer(c_int), intent(out), optional :: info
            integer(c_int) :: status
        end function ft_dgeqrf_gpu

        !> The sized function behind ft_dgeqrf_gpu_ex (below).
        function ft_dgeqrf_gpu_ex_v(ctx, m, n, da, ldda, tau, info, report, report_size) &
            result(status) bind(C, name='ft_dgeqrf_gpu_ex_v')
            import :: c_ptr, c_int, c_double, c_size_t, ft_report_t
            type(c_ptr), value :: ctx
            integer(c_int), value :: m, n, ldda
            type(c_ptr), value :: da
            real(c_double), intent(out) :: tau(*)
            integer(c_int), intent(out), optional :: info
            type(ft_report_t), intent(inout), optional :: report
            integer(c_size_t), value :: report_size
            integer(c_int) :: status
        end function ft_dgeqrf_gpu_ex_v

        ! -- performance model and timeline --------------------------------------------------------

        !> Predict an m x n ft_dgeqrf on ctx (is_gpu = 0: host pointers, 1: device pointers).
        function ft_dgeqrf_model(ctx, m, n, is_gpu, out) result(status) &
            bind(C, name='ft_dgeqrf_model')
            import :: c_ptr, c_int, ft_qr_model_t
            type(c_ptr), value :: ctx
            integer(c_int), value :: m, n, is_gpu
            type(ft_qr_model_t), intent(out) :: out
            integer(c_int) :: status
        end function ft_dgeqrf_model

        !> Trace the next calls on ctx into the ft_trace_t at `trace` (c_loc of a TARGET
        !> variable; c_null_ptr stops).
        function ft_context_set_trace(ctx, trace) result(status) &
            bind(C, name='ft_context_set_trace')
            import :: c_ptr, c_int
            type(c_ptr), value :: ctx, trace
            integer(c_int) :: status
        end function ft_context_set_trace

        !> Names of lanes and phases as C strings (ftla_string gives Fortran strings).
        function ft_lane_name(lane) result(name) bind(C, name='ft_lane_name')
            import :: c_ptr, c_int
            integer(c_int), value :: lane
            type(c_ptr) :: name
        end function ft_lane_name

        function ft_phase_name(phase) result(name) bind(C, name='ft_phase_name')
            import :: c_ptr, c_int
            integer(c_int), value :: phase
            type(c_ptr) :: name
        end function ft_phase_name

        ! -- recovery: column source, the FT factor, ft_dormqr, ft_dgels --------------------------

        !> Use fn (c_funloc of a bind(C) function
        !>     integer(c_int) function fn(user, j, m, col)
        !>       type(c_ptr), value :: user; integer(c_int), value :: j, m
        !>       real(c_double) :: col(m)
        !> that fills col with column j (0-based) of the original A and returns 0) as the source
        !> of the original columns for recovery; c_null_funptr: none.
        function ft_context_set_column_source(ctx, fn, user) result(status) &
            bind(C, name='ft_context_set_column_source')
            import :: c_ptr, c_funptr, c_int
            type(c_ptr), value :: ctx
            type(c_funptr), value :: fn
            type(c_ptr), value :: user
            integer(c_int) :: status
        end function ft_context_set_column_source

        function ft_qrf_create(f) result(status) bind(C, name='ft_qrf_create')
            import :: c_ptr, c_int
            type(c_ptr), intent(out) :: f
            integer(c_int) :: status
        end function ft_qrf_create

        function ft_qrf_destroy(f) result(status) bind(C, name='ft_qrf_destroy')
            import :: c_ptr, c_int
            type(c_ptr), value :: f
            integer(c_int) :: status
        end function ft_qrf_destroy

        !> Rotation sequences held by the FT factor (0: plain LAPACK layout); -1 for c_null_ptr.
        function ft_qrf_recoveries(f) result(n) bind(C, name='ft_qrf_recoveries')
            import :: c_ptr, c_int
            type(c_ptr), value :: f
            integer(c_int) :: n
        end function ft_qrf_recoveries

        !> Attach the FT factor f (c_null_ptr detaches) to ctx.
        function ft_context_set_qrf(ctx, f) result(status) bind(C, name='ft_context_set_qrf')
            import :: c_ptr, c_int
            type(c_ptr), value :: ctx, f
            integer(c_int) :: status
        end function ft_context_set_qrf

        !> C := op(Q) C or C op(Q) with Q of the FT factor (a, tau, f or c_null_ptr), as DORMQR.
        function ft_dormqr(side, trans, m, n, k, a, lda, tau, f, c, ldc, info) result(status) &
            bind(C, name='ft_dormqr')
            import :: c_ptr, c_char, c_int, c_double
            character(kind=c_char), value :: side, trans
            integer(c_int), value :: m, n, k, lda, ldc
            real(c_double), intent(in) :: a(lda, *), tau(*)
            type(c_ptr), value :: f
            real(c_double), intent(inout) :: c(ldc, *)
            integer(c_int), intent(out), optional :: info
            integer(c_int) :: status
        end function ft_dormqr

        !> ft_dormqr on device pointers (CUDA builds): da, dc in GPU memory, tau and f on the host.
        function ft_dormqr_gpu(side, trans, m, n, k, da, ldda, tau, f, dc, lddc, info) &
            result(status) bind(C, name='ft_dormqr_gpu')
            import :: c_ptr, c_char, c_int, c_double
            character(kind=c_char), value :: side, trans
            integer(c_int), value :: m, n, k, ldda, lddc
            type(c_ptr), value :: da
            real(c_double), intent(in) :: tau(*)
            type(c_ptr), value :: f, dc
            integer(c_int), intent(out), optional :: info
            integer(c_int) :: status
        end function ft_dormqr_gpu

        !> Full-rank least squares / minimum norm, as LAPACK DGELS (lwork = -1: query).
        function ft_dgels(trans, m, n, nrhs, a, lda, b, ldb, work, lwork, info) result(status) &
            bind(C, name='ft_dgels')
            import :: c_char, c_int, c_double
            character(kind=c_char), value :: trans
            integer(c_int), value :: m, n, nrhs, lda, ldb, lwork
            real(c_double), intent(inout) :: a(lda, *), b(ldb, *), work(*)
            integer(c_int), intent(out), optional :: info
            integer(c_int) :: status
        end function ft_dgels

        !> ft_dgels on device pointers (CUDA builds).
        function ft_dgels_gpu(trans, m, n, nrhs, da, ldda, db, lddb, info) result(status) &
            bind(C, name='ft_dgels_gpu')
            import :: c_ptr, c_char, c_int
            character(kind=c_char), value :: trans
            integer(c_int), value :: m, n, nrhs, ldda, lddb
            type(c_ptr), value :: da, db
            integer(c_int), intent(out), optional :: info
            integer(c_int) :: status
        end function ft_dgels_gpu
    end interface

    !> A Fortran string from a C string (type(c_ptr), e.g. ft_strerror's, ft_lane_name's) or from a
    !> NUL-terminated character array (ft_qr_model_t's device and cache).
    interface ftla_string
        module procedure ftla_string_ptr, ftla_string_chars
    end interface ftla_string

    private :: c_strlen, ftla_string_ptr, ftla_string_chars
    interface
        function c_strlen(s) result(len) bind(C, name='strlen')
            import :: c_ptr, c_size_t
            type(c_ptr), value :: s
            integer(c_size_t) :: len
        end function c_strlen
    end interface

contains

    !> ft_dgemm with an explicit context (c_null_ptr = default) and an optional report. Passes
    !> this module's size of ft_report_t, so the library writes only the fields it declares.
    function ft_dgemm_ex(ctx, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &
                         report) result(status)
        type(c_ptr), value :: ctx
        character(kind=c_char), value :: transa, transb
        integer(c_int), value :: m, n, k, lda, ldb, ldc
        real(c_double), value :: alpha, beta
        real(c_double), intent(in) :: a(lda, *), b(ldb, *)
        real(c_double), intent(inout) :: c(ldc, *)
        type(ft_report_t), intent(inout), optional :: report
        integer(c_int) :: status
        type(ft_report_t) :: like
        status = ft_dgemm_ex_v(ctx, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                               ldc, report, c_sizeof(like))
    end function ft_dgemm_ex

    !> ft_dgemm_gpu with an explicit context and an optional report.
    function ft_dgemm_gpu_ex(ctx, transa, transb, m, n, k, alpha, da, lda, db, ldb, beta, dc, &
                             ldc, report) result(status)
        type(c_ptr), value :: ctx
        character(kind=c_char), value :: transa, transb
        integer(c_int), value :: m, n, k, lda, ldb, ldc
        real(c_double), value :: alpha, beta
        type(c_ptr), value :: da, db, dc
        type(ft_report_t), intent(inout), optional :: report
        integer(c_int) :: status
        type(ft_report_t) :: like
        status = ft_dgemm_gpu_ex_v(ctx, transa, transb, m, n, k, alpha, da, lda, db, ldb, beta, &
                                   dc, ldc, report, c_sizeof(like))
    end function ft_dgemm_gpu_ex

    !> ft_dgeqrf with an explicit context and an optional report (and the context's FT factor,
    !> when one is attached: docs/recovery.md).
    function ft_dgeqrf_ex(ctx, m, n, a, lda, tau, work, lwork, info, report) result(status)
        type(c_ptr), value :: ctx
        integer(c_int), value :: m, n, lda, lwork
        real(c_double), intent(inout) :: a(lda, *)
        real(c_double), intent(out) :: tau(*)
        real(c_double), intent(inout) :: work(*)
        integer(c_int), intent(out), optional :: info
        type(ft_report_t), intent(inout), optional :: report
        integer(c_int) :: status
        type(ft_report_t) :: like
        status = ft_dgeqrf_ex_v(ctx, m, n, a, lda, tau, work, lwork, info, report, c_sizeof(like))
    end function ft_dgeqrf_ex

    !> ft_dgeqrf_gpu with an explicit context and an optional report.
    function ft_dgeqrf_gpu_ex(ctx, m, n, da, ldda, tau, info, report) result(status)
        type(c_ptr), value :: ctx
        integer(c_int), value :: m, n, ldda
        type(c_ptr), value :: da
        real(c_double), intent(out) :: tau(*)
        integer(c_int), intent(out), optional :: info
        type(ft_report_t), intent(inout), optional :: report
        integer(c_int) :: status
        type(ft_report_t) :: like
        status = ft_dgeqrf_gpu_ex_v(ctx, m, n, da, ldda, tau, info, report, c_sizeof(like))
    end function ft_dgeqrf_gpu_ex

    !> The context's policy (this module's ft_policy_t layout; see "ABI stability" in ftla.h).
    function ft_context_get_policy(ctx, policy) result(status)
        type(c_ptr), value :: ctx
        type(ft_policy_t), intent(inout) :: policy
        integer(c_int) :: status
        status = ft_context_get_policy_v(ctx, policy, c_sizeof(policy))
    end function ft_context_get_policy

    !> Replace the context's policy (validated first; nothing changes on FT_ERR_INVALID_VALUE).
    function ft_context_set_policy(ctx, policy) result(status)
        type(c_ptr), value :: ctx
        type(ft_policy_t), intent(in) :: policy
        integer(c_int) :: status
        status = ft_context_set_policy_v(ctx, policy, c_sizeof(policy))
    end function ft_context_set_policy

    !> Text of a status code (0, -i or FT_ERR_*) as a Fortran string.
    function ftla_strerror(status) result(msg)
        integer(c_int), intent(in) :: status
        character(len=:), allocatable :: msg
        msg = ftla_string_ptr(ft_strerror(status))
    end function ftla_strerror

    !> One-line summary of a report (ft_report_string) as a Fortran string.
    function ftla_report_string(report) result(line)
        type(ft_report_t), intent(in) :: report
        character(len=:), allocatable :: line
        character(kind=c_char), target :: buf(512)
        type(c_ptr) :: p
        p = ft_report_string_v(report, c_sizeof(report), buf, int(size(buf), c_size_t))
        line = ftla_string_chars(buf)
    end function ftla_report_string

    function ftla_string_ptr(p) result(s)
        type(c_ptr), intent(in) :: p
        character(len=:), allocatable :: s
        character(kind=c_char), pointer :: chars(:)
        integer :: i, n

        if (.not. c_associated(p)) then
            s = ''
            return
        end if
        n = int(c_strlen(p))
        call c_f_pointer(p, chars, [n])
        allocate (character(len=n) :: s)
        do i = 1, n
            s(i:i) = chars(i)
        end do
    end function ftla_string_ptr

    function ftla_string_chars(chars) result(s)
        character(kind=c_char), intent(in) :: chars(:)
        character(len=:), allocatable :: s
        integer :: i, n

        n = size(chars)
        do i = 1, size(chars)
            if (chars(i) == c_null_char) then
                n = i - 1
                exit
            end if
        end do
        allocate (character(len=n) :: s)
        do i = 1, n
            s(i:i) = chars(i)
        end do
    end function ftla_string_chars

end module ftla
