!> ftla.f90 -- Fortran module `ftla`: iso_c_binding interfaces to the ftla C API (include/ftla.h).
!>
!> Compile this file with your program (it is installed next to ftla.h) and `use ftla`.
!> Conventions, as in the C API:
!>   * column-major arrays, LAPACK argument order; dimensions are integer(c_int) (LP64: the
!>     default INTEGER of gfortran/ifx without -fdefault-integer-8 / -i8);
!>   * TRANSA/TRANSB are single characters passed by value ('N', 'T', 'C', any case);
!>   * every routine is a function returning an integer(c_int) status: 0 = success,
!>     -i = argument i illegal (logged by ft_xerbla, nothing computed), <= -1000 = FT_ERR_*;
!>     ftla_strerror(status) gives its text;
!>   * 0-based row/column indices in ft_fault_t and ft_event_t (as in C).
!>
!> The library also exports a legacy Fortran-77 ABI subroutine for programs that do not use this
!> module (src/interface/fortran.c):
!>     CALL FT_DGEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC, INFO)
!> with an extra last argument INFO (0, -i or an FT_ERR_* code). Inside a scope that uses this
!> module the name ft_dgemm is the function below instead.
!>
!> ft_dgeqrf is not bound yet (the C routines exist: docs/api.md).
module ftla
    use, intrinsic :: iso_c_binding
    implicit none

    ! ---- status codes (ft_status_t) ------------------------------------------------------
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

    ! ---- devices (ft_device_t) -----------------------------------------------------------
    integer(c_int), parameter :: FT_DEVICE_AUTO = 0
    integer(c_int), parameter :: FT_DEVICE_CPU = 1
    integer(c_int), parameter :: FT_DEVICE_CUDA = 2

    ! ---- fault-injection regions (ft_region_t) -------------------------------------------
    integer(c_int), parameter :: FT_REGION_C = 0
    integer(c_int), parameter :: FT_REGION_A = 1
    integer(c_int), parameter :: FT_REGION_B = 2
    integer(c_int), parameter :: FT_REGION_CHECKSUM = 3
    integer(c_int), parameter :: FT_REGION_R = 4
    integer(c_int), parameter :: FT_REGION_TRAILING = 5
    integer(c_int), parameter :: FT_REGION_Q = 6

    ! ---- report events (ft_event_kind_t) -------------------------------------------------
    integer(c_int), parameter :: FT_EVENT_INJECTED = 0
    integer(c_int), parameter :: FT_EVENT_CORRECTED = 1
    integer(c_int), parameter :: FT_EVENT_RECOMPUTED = 2
    integer(c_int), parameter :: FT_EVENT_CHECKSUM = 3
    integer(c_int), parameter :: FT_EVENT_UNCORRECTABLE = 4
    integer(c_int), parameter :: FT_EVENT_LOCATED = 5

    integer(c_int), parameter :: FT_REPORT_MAX_EVENTS = 64

    ! ---- structures (same layout as the C structs; enums are C int) -----------------------

    !> ft_policy_t: protection policy (get it, change fields, set it back).
    type, bind(C) :: ft_policy_t
        integer(c_int) :: protect      !< 1 = ABFT on (default), 0 = off
        integer(c_int) :: tile         !< ft_dgemm verification tile; 0 = automatic
        real(c_double) :: tol          !< threshold safety factor; 0 = 2.0
        integer(c_int) :: backup_c     !< -1 automatic, 0 never, 1 always
        integer(c_int) :: nb           !< ft_dgeqrf block size; 0 = automatic
        integer(c_int) :: verify_every !< ft_dgeqrf online verification period
        integer(c_int) :: crossover    !< ft_dgeqrf LAPACK crossover
        integer(c_int) :: verbose      !< 0, 1 or 2
        integer(c_int) :: serial_encode !< ft_dgemm on CUDA: 1 = encode before the product
        integer(c_int) :: operand_check !< ft_dgemm: 0 default (on), 1 on, -1 off
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
        integer(c_int64_t) :: step       !< dgemm: tile index
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
    end type ft_report_t

    ! ---- the C functions -------------------------------------------------------------------
    interface
        !> C := alpha*op(A)*op(B) + beta*C with ABFT protection, on the default context.
        function ft_dgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) &
            result(status) bind(C, name='ft_dgemm')
            import :: c_char, c_int, c_double
            character(kind=c_char), value :: transa, transb
            integer(c_int), value :: m, n, k, lda, ldb, ldc
            real(c_double), value :: alpha, beta
            real(c_double), intent(in) :: a(lda, *), b(ldb, *)
            real(c_double), intent(inout) :: c(ldc, *)
            integer(c_int) :: status
        end function ft_dgemm

        !> The sized entry point behind ft_dgemm_ex (see "ABI stability" in ftla.h).
        function c_ft_dgemm_ex_v(ctx, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
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
        end function c_ft_dgemm_ex_v

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

        !> Text of a status code, as a C string (use ftla_strerror for a Fortran string).
        function ft_strerror(status) result(text) bind(C, name='ft_strerror')
            import :: c_ptr, c_int
            integer(c_int), value :: status
            type(c_ptr) :: text
        end function ft_strerror

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

        !> The sized entry points behind ft_context_get_policy / ft_context_set_policy.
        function c_ft_context_get_policy_v(ctx, policy, size) result(status) &
            bind(C, name='ft_context_get_policy_v')
            import :: c_ptr, c_int, c_size_t, ft_policy_t
            type(c_ptr), value :: ctx
            type(ft_policy_t), intent(inout) :: policy
            integer(c_size_t), value :: size
            integer(c_int) :: status
        end function c_ft_context_get_policy_v

        function c_ft_context_set_policy_v(ctx, policy, size) result(status) &
            bind(C, name='ft_context_set_policy_v')
            import :: c_ptr, c_int, c_size_t, ft_policy_t
            type(c_ptr), value :: ctx
            type(ft_policy_t), intent(in) :: policy
            integer(c_size_t), value :: size
            integer(c_int) :: status
        end function c_ft_context_set_policy_v

        !> The default context of the plain entry points (configured from FTLA_*).
        function ft_default_context() result(ctx) bind(C, name='ft_default_context')
            import :: c_ptr
            type(c_ptr) :: ctx
        end function ft_default_context

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
    end interface

    private :: c_strlen, c_ft_dgemm_ex_v, c_ft_context_get_policy_v, c_ft_context_set_policy_v
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
        status = c_ft_dgemm_ex_v(ctx, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, &
                                 ldc, report, c_sizeof(like))
    end function ft_dgemm_ex

    !> The context's policy (this module's ft_policy_t layout; see "ABI stability" in ftla.h).
    function ft_context_get_policy(ctx, policy) result(status)
        type(c_ptr), value :: ctx
        type(ft_policy_t), intent(inout) :: policy
        integer(c_int) :: status
        status = c_ft_context_get_policy_v(ctx, policy, c_sizeof(policy))
    end function ft_context_get_policy

    !> Replace the context's policy (validated first; nothing changes on FT_ERR_INVALID_VALUE).
    function ft_context_set_policy(ctx, policy) result(status)
        type(c_ptr), value :: ctx
        type(ft_policy_t), intent(in) :: policy
        integer(c_int) :: status
        status = c_ft_context_set_policy_v(ctx, policy, c_sizeof(policy))
    end function ft_context_set_policy

    !> Text of a status code (0, -i or FT_ERR_*) as a Fortran string.
    function ftla_strerror(status) result(msg)
        integer(c_int), intent(in) :: status
        character(len=:), allocatable :: msg
        type(c_ptr) :: p
        character(kind=c_char), pointer :: chars(:)
        integer :: i, n

        p = ft_strerror(status)
        if (.not. c_associated(p)) then
            msg = ''
            return
        end if
        n = int(c_strlen(p))
        call c_f_pointer(p, chars, [n])
        allocate (character(len=n) :: msg)
        do i = 1, n
            msg(i:i) = chars(i)
        end do
    end function ftla_strerror

end module ftla
