!> test_fortran_module.f90 -- the module `ftla` (include/ftla.f90): each binding called from
!> Fortran and its result checked.
!>
!>   - ft_version against FTLA_VERSION_*, ft_strerror / ftla_strerror, ft_lane_name /
!>     ft_phase_name through ftla_string;
!>   - ft_set_xerbla with a Fortran bind(C) handler (c_funloc): argument errors of ft_dgemm,
!>     ft_dgemm_gpu, ft_dgeqrf, ft_dormqr, ft_dgels reach it with the C routine name and the
!>     position, ft_xerbla too; the previous handler comes back;
!>   - ft_dgemm for each transposition and ft_dgemm_ex on the default context and on a CPU context
!>     with a report (backend, status, checks, the report string), against a triple loop;
!>   - policies: the defaults of every field of ft_policy_t, a set/get round trip of every field,
!>     invalid values of the later fields (keep_input, protect_q, panel, error_rate) refused
!>     with the policy unchanged — which also proves each field lands where C reads it;
!>   - fault injection: a fault planned and reported (event position), ft_inject_clear,
!>     ft_inject_seed, an invalid fault refused;
!>   - ft_dgeqrf (workspace query, results: dqrt01 ratio from ft_dormqr), ft_dgeqrf_ex with an FT
!>     factor attached (ft_qrf_*) and a trailing fault: recovered by QR update, Q*R from
!>     ft_dormqr with the factor equals A; ft_dormqr 'T' then 'N' gives C back;
!>   - a column source written in Fortran (c_funloc) recovers a trailing fault with no input kept;
!>     without it the status and INFO are FT_ERR_NOT_RECOVERED;
!>   - ft_dgels, overdetermined (A^T r = 0) and underdetermined (A x = b, x in the row space);
!>   - the timeline (ft_context_set_trace with a Fortran ft_trace_t and ft_span_t array) and the
!>     performance model (ft_dgeqrf_model) on a CPU context;
!>   - the _gpu routines and ft_context_set_stream without a usable GPU: their documented errors;
!>   - ft_last_status after a drop-in call (subroutine dropin_bad, without the module).
!> Exits with status 1 when a check fails.
module fcheck
    use ftla
    implicit none
    integer :: nfail = 0, nchecks = 0
    ! the xerbla handler's record
    integer :: xcalls = 0, xinfo = 0
    character(len=32) :: xname = ''
    ! the column source's data
    real(c_double), allocatable, target :: orig(:, :)
    integer :: source_calls = 0
contains
    subroutine check(cond, what)
        logical, intent(in) :: cond
        character(len=*), intent(in) :: what
        nchecks = nchecks + 1
        if (.not. cond) then
            print '(2a)', 'FAILED: ', what
            nfail = nfail + 1
        end if
    end subroutine check

    subroutine handler(srname, info) bind(C)
        type(c_ptr), value :: srname
        integer(c_int), value :: info
        xcalls = xcalls + 1
        xinfo = info
        xname = ftla_string(srname)
    end subroutine handler

    subroutine expect_xerbla(status, name, pos, what)
        integer(c_int), intent(in) :: status
        character(len=*), intent(in) :: name, what
        integer, intent(in) :: pos
        call check(status == -pos .and. xcalls == 1 .and. xinfo == pos .and. xname == name, &
                   what//': -position, handler called once with '//name)
        xcalls = 0
        xinfo = 0
        xname = ''
    end subroutine expect_xerbla

    !> column j (0-based) of the original A, for recovery (ft_column_source_t)
    function column_source(user, j, m, col) result(rc) bind(C)
        type(c_ptr), value :: user
        integer(c_int), value :: j, m
        real(c_double), intent(out) :: col(m)
        integer(c_int) :: rc
        source_calls = source_calls + 1
        col = orig(1:m, j + 1)
        rc = 0
    end function column_source

    !> LAPACK dqrt01's ||A - QR||_1 / (max(m,n) ||A||_1 eps), Q applied by ft_dormqr (with F)
    function qr_ratio(a0, af, tau, f) result(ratio)
        real(c_double), intent(in) :: a0(:, :), af(:, :), tau(:)
        type(c_ptr), intent(in) :: f
        real(c_double) :: ratio
        real(c_double) :: x(size(a0, 1), size(a0, 2))
        integer(c_int) :: m, n, k, j, st
        m = size(a0, 1)
        n = size(a0, 2)
        k = min(m, n)
        x = 0
        do j = 1, n
            x(1:min(j, k), j) = af(1:min(j, k), j)
        end do
        st = ft_dormqr('L', 'N', m, n, k, af, m, tau, f, x, m)
        if (st /= FT_SUCCESS) then
            ratio = huge(1.0_c_double)
            return
        end if
        ratio = maxval(sum(abs(x - a0), dim=1))/ &
                (max(m, n)*maxval(sum(abs(a0), dim=1))*epsilon(1.0_c_double))
    end function qr_ratio
end module fcheck

program test_fortran_module
    use fcheck
    implicit none
    call basics()
    call xerbla_handler()
    call dgemm_calls()
    call policies()
    call injection()
    call qr_calls()
    call column_source_calls()
    call dgels_calls()
    call trace_and_model()
    call gpu_errors()
    call last_status()
    print '(i0, a, i0, a)', nchecks, ' checks, ', nfail, ' failed'
    if (nfail /= 0) error stop 1
    print '(a)', 'test_fortran_module: OK'
contains

    subroutine basics()
        integer(c_int) :: major, minor, patch
        major = -1
        minor = -1
        patch = -1
        call ft_version(major, minor, patch)
        call check(major == FTLA_VERSION_MAJOR .and. minor == FTLA_VERSION_MINOR .and. &
                   patch == FTLA_VERSION_PATCH, 'ft_version = FTLA_VERSION_*')
        call ft_version(minor=minor)   ! absent arguments are NULL pointers in C
        call check(minor == FTLA_VERSION_MINOR, 'ft_version with optional arguments absent')
        call check(ftla_strerror(FT_SUCCESS) == 'success', 'ftla_strerror(0)')
        call check(ftla_strerror(FT_ERR_UNCORRECTABLE) == &
                   'a soft error was detected and could not be corrected', &
                   'ftla_strerror(FT_ERR_UNCORRECTABLE)')
        call check(ftla_string(ft_strerror(-3)) == &
                   'illegal value of an argument (see ft_xerbla output)', 'ft_strerror(-3)')
        call check(ftla_string(ft_lane_name(FT_LANE_MAIN)) == 'main' .and. &
                   ftla_string(ft_lane_name(FT_LANE_COPY_OUT)) == 'copy_out' .and. &
                   ftla_string(ft_lane_name(FT_NLANES)) == '?', 'ft_lane_name')
        call check(ftla_string(ft_phase_name(FT_PHASE_PANEL)) == 'panel' .and. &
                   ftla_string(ft_phase_name(FT_PHASE_RECOVER)) == 'recover' .and. &
                   ftla_string(ft_phase_name(-1)) == '?', 'ft_phase_name')
        call check(ft_have_cuda() == 0 .or. ft_have_cuda() == 1, 'ft_have_cuda is 0 or 1')
        call check(ft_cuda_available() == 0 .or. ft_have_cuda() == 1, &
                   'ft_cuda_available implies ft_have_cuda')
        call check(c_associated(ft_default_context()), 'ft_default_context')
    end subroutine basics

    subroutine xerbla_handler()
        type(c_funptr) :: prev, mine
        real(c_double) :: a(4, 4), c(4, 4), tau(4), work(16)
        integer(c_int) :: st, info
        a = 1
        c = 0
        mine = c_funloc(handler)   ! a variable: gfortran 12.2 has an internal compiler error on
                                   ! c_associated(prev, c_funloc(handler)) in this procedure
        prev = ft_set_xerbla(mine)
        call check(.not. c_associated(prev), 'ft_set_xerbla: the previous handler was the default')
        st = ft_dgemm('X', 'N', 2, 2, 2, 1.0_c_double, a, 4, a, 4, 0.0_c_double, c, 4)
        call expect_xerbla(st, 'FT_DGEMM', 1, 'ft_dgemm transa X')
        st = ft_dgemm('N', 'N', 2, 2, 2, 1.0_c_double, a, 1, a, 4, 0.0_c_double, c, 4)
        call expect_xerbla(st, 'FT_DGEMM', 8, 'ft_dgemm lda 1')
        st = ft_dgemm_gpu('N', 'N', -1, 2, 2, 1.0_c_double, c_null_ptr, 4, c_null_ptr, 4, &
                          0.0_c_double, c_null_ptr, 4)
        call expect_xerbla(st, 'FT_DGEMM_GPU', 3, 'ft_dgemm_gpu m -1')
        st = ft_dgeqrf(4, 4, a, 3, tau, work, 16, info)
        call expect_xerbla(st, 'FT_DGEQRF', 4, 'ft_dgeqrf lda 3')
        call check(info == -4, 'ft_dgeqrf: info = status')
        st = ft_dgeqrf(4, 4, a, 4, tau, work, 2)   ! info absent
        call expect_xerbla(st, 'FT_DGEQRF', 7, 'ft_dgeqrf lwork 2, no info')
        st = ft_dormqr('X', 'N', 4, 4, 4, a, 4, tau, c_null_ptr, c, 4, info)
        call expect_xerbla(st, 'FT_DORMQR', 1, 'ft_dormqr side X')
        st = ft_dgels('N', 4, 4, 1, a, 4, c, 2, work, 16, info)
        call expect_xerbla(st, 'FT_DGELS', 8, 'ft_dgels ldb 2')
        call ft_xerbla('MINE'//c_null_char, 5)
        call check(xcalls == 1 .and. xinfo == 5 .and. xname == 'MINE', 'ft_xerbla reaches the handler')
        xcalls = 0
        prev = ft_set_xerbla(c_null_funptr)
        call check(c_associated(prev, mine), 'ft_set_xerbla returns our handler')
    end subroutine xerbla_handler

    subroutine dgemm_calls()
        integer(c_int), parameter :: m = 33, n = 21, k = 17, ld = 40
        character, parameter :: ops(2) = ['N', 'T']
        real(c_double), parameter :: eps = epsilon(1.0_c_double)
        real(c_double) :: a(ld, ld), b(ld, ld), c(m, n), ref(m, n), bnd(m, n), opa(m, k), &
                          opb(k, n)
        type(c_ptr) :: ctx
        type(ft_report_t) :: rep
        integer(c_int) :: st, ia, ib, i, j, l
        character(len=:), allocatable :: line

        call random_number(a)
        call random_number(b)
        a = a - 0.5_c_double
        b = b - 0.5_c_double
        do ia = 1, 2
            do ib = 1, 2
                if (ops(ia) == 'N') then
                    opa = a(1:m, 1:k)
                else
                    opa = transpose(a(1:k, 1:m))
                end if
                if (ops(ib) == 'N') then
                    opb = b(1:k, 1:n)
                else
                    opb = transpose(b(1:n, 1:k))
                end if
                ref = 0
                bnd = 0
                do j = 1, n
                    do l = 1, k
                        do i = 1, m
                            ref(i, j) = ref(i, j) + opa(i, l)*opb(l, j)
                            bnd(i, j) = bnd(i, j) + abs(opa(i, l)*opb(l, j))
                        end do
                    end do
                end do
                c = 0
                st = ft_dgemm(ops(ia), ops(ib), m, n, k, 1.0_c_double, a, ld, b, ld, 0.0_c_double, &
                              c, m)
                call check(st == 0 .and. all(abs(c - ref) <= 2*(k + 2)*eps*bnd), &
                           'ft_dgemm '//ops(ia)//ops(ib)//' against the loop')
            end do
        end do
        ! ft_dgemm_ex: default context (c_null_ptr) with a report, then a CPU context
        rep%status = -77
        c = 1
        st = ft_dgemm_ex(c_null_ptr, 'N', 'N', m, n, k, 2.0_c_double, a, ld, b, ld, &
                         -1.0_c_double, c, m, rep)
        ref = 2*matmul(a(1:m, 1:k), b(1:k, 1:n)) - 1
        call check(st == 0 .and. rep%status == 0 .and. rep%backend == FT_DEVICE_CPU .and. &
                   rep%checks > 0 .and. rep%detected == 0 .and. rep%nevents == 0, &
                   'ft_dgemm_ex(default context): report fields')
        call check(all(abs(c - ref) <= 4*(k + 2)*eps*(2*matmul(abs(a(1:m, 1:k)), &
                                                              abs(b(1:k, 1:n))) + 1)), &
                   'ft_dgemm_ex(default context): result')
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create(CPU)')
        call check(ft_context_device(ctx) == FT_DEVICE_CPU, 'ft_context_device = CPU')
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0_c_double, a, ld, b, ld, &
                         0.0_c_double, c, m)   ! report absent
        call check(st == 0, 'ft_dgemm_ex without a report')
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0_c_double, a, ld, b, ld, &
                         0.0_c_double, c, m, rep)
        line = ftla_report_string(rep)
        call check(index(line, 'backend=cpu status=0') == 1, 'ftla_report_string: '//line)
        call check(rep%time_total > 0 .and. rep%time_total >= rep%time_protect, &
                   'report times (the doubles after the counters)')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
    end subroutine dgemm_calls

    subroutine policies()
        type(c_ptr) :: ctx
        type(ft_policy_t) :: p, q, bad
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create')
        call check(ft_context_get_policy(ctx, p) == 0, 'ft_context_get_policy')
        call check(p%protect == 1 .and. p%tile == 0 .and. p%tol == 2 .and. p%backup_c == -1 .and. &
                   p%nb == 0 .and. p%verify_every == 0 .and. p%crossover == 0 .and. &
                   p%verbose == 0 .and. p%serial_encode == 0 .and. p%operand_check == 0 .and. &
                   p%keep_input == 0 .and. p%protect_q == 0 .and. p%panel == FT_PANEL_AUTO .and. &
                   p%error_rate == 0, 'default policy, every field')
        p%tile = 48
        p%tol = 3.5_c_double
        p%backup_c = 1
        p%nb = 16
        p%verify_every = 2
        p%crossover = -1
        p%verbose = 0
        p%serial_encode = 1
        p%operand_check = -1
        p%keep_input = 1
        p%protect_q = -1
        p%panel = FT_PANEL_CPU
        p%error_rate = 0.25_c_double
        call check(ft_context_set_policy(ctx, p) == 0, 'set a policy with every field changed')
        call check(ft_context_get_policy(ctx, q) == 0, 'get it back')
        call check(q%protect == 1 .and. q%tile == 48 .and. q%tol == 3.5_c_double .and. &
                   q%backup_c == 1 .and. q%nb == 16 .and. q%verify_every == 2 .and. &
                   q%crossover == -1 .and. q%serial_encode == 1 .and. q%operand_check == -1 .and. &
                   q%keep_input == 1 .and. q%protect_q == -1 .and. q%panel == FT_PANEL_CPU .and. &
                   q%error_rate == 0.25_c_double, 'policy round trip, every field')
        ! invalid values of the later fields: refused, nothing changed
        bad = q
        bad%keep_input = 3
        call check(ft_context_set_policy(ctx, bad) == FT_ERR_INVALID_VALUE, 'keep_input 3 refused')
        bad = q
        bad%protect_q = 2
        call check(ft_context_set_policy(ctx, bad) == FT_ERR_INVALID_VALUE, 'protect_q 2 refused')
        bad = q
        bad%panel = 3
        call check(ft_context_set_policy(ctx, bad) == FT_ERR_INVALID_VALUE, 'panel 3 refused')
        bad = q
        bad%error_rate = -1
        call check(ft_context_set_policy(ctx, bad) == FT_ERR_INVALID_VALUE, 'error_rate -1 refused')
        bad = q
        bad%operand_check = 2
        call check(ft_context_set_policy(ctx, bad) == FT_ERR_INVALID_VALUE, &
                   'operand_check 2 refused')
        call check(ft_context_get_policy(ctx, p) == 0 .and. p%keep_input == 1 .and. &
                   p%protect_q == -1 .and. p%panel == FT_PANEL_CPU .and. &
                   p%error_rate == 0.25_c_double .and. p%operand_check == -1, &
                   'refused sets changed nothing')
        ! the sized function with this module's size of the v1 policy: accepted
        call check(ft_context_get_policy_v(ctx, q, FT_POLICY_SIZE_V1) == 0, &
                   'ft_context_get_policy_v with FT_POLICY_SIZE_V1')
        call check(ft_context_get_policy_v(ctx, q, FT_POLICY_SIZE_V1 - 1) == FT_ERR_INVALID_VALUE, &
                   'ft_context_get_policy_v below v1 refused')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
    end subroutine policies

    subroutine injection()
        integer(c_int), parameter :: m = 40, n = 36, k = 20
        real(c_double) :: a(m, k), b(k, n), c(m, n)
        type(c_ptr) :: ctx
        type(ft_fault_t) :: f
        type(ft_report_t) :: rep
        type(ft_policy_t) :: p
        integer(c_int) :: st
        call random_number(a)
        call random_number(b)
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create')
        call check(ft_context_get_policy(ctx, p) == 0, 'get policy')
        p%tile = 16
        call check(ft_context_set_policy(ctx, p) == 0, 'tile 16')
        f%region = FT_REGION_C
        f%row = 25
        f%col = 30
        f%bit = 61
        call check(ft_inject_add(ctx, f) == 0, 'ft_inject_add')
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0_c_double, a, m, b, k, 0.0_c_double, c, m, rep)
        call check(st == 0 .and. rep%injected == 1 .and. rep%corrected == 1 .and. &
                   rep%nevents >= 2, 'a planned fault in C: injected and corrected')
        call check(rep%events(1)%kind == FT_EVENT_INJECTED .and. rep%events(1)%region == FT_REGION_C &
                   .and. rep%events(1)%row == 25 .and. rep%events(1)%col == 30, &
                   'the injection event: kind, region, row, col')
        call check(any(rep%events(2:rep%nevents)%kind == FT_EVENT_CORRECTED .and. &
                       rep%events(2:rep%nevents)%row == 25 .and. &
                       rep%events(2:rep%nevents)%col == 30), 'the correction event')
        call check(all(abs(c - matmul(a, b)) <= 2*(k + n + 2)*epsilon(1.0_c_double)* &
                       maxval(matmul(a, b))), 'corrected result')
        ! planned, then cleared: nothing injected
        call check(ft_inject_add(ctx, f) == 0, 'ft_inject_add again')
        call check(ft_inject_clear(ctx) == 0, 'ft_inject_clear')
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0_c_double, a, m, b, k, 0.0_c_double, c, m, rep)
        call check(st == 0 .and. rep%injected == 0 .and. rep%detected == 0, 'cleared plan')
        ! random position from the seeded generator
        call check(ft_inject_seed(ctx, 12345_c_int64_t) == 0, 'ft_inject_seed')
        f%row = -1
        f%col = -1
        call check(ft_inject_add(ctx, f) == 0, 'ft_inject_add(random position)')
        st = ft_dgemm_ex(ctx, 'N', 'N', m, n, k, 1.0_c_double, a, m, b, k, 0.0_c_double, c, m, rep)
        call check(st == 0 .and. rep%injected == 1 .and. rep%corrected == 1 .and. &
                   rep%events(1)%row >= 0 .and. rep%events(1)%row < m .and. &
                   rep%events(1)%col >= 0 .and. rep%events(1)%col < n, 'random fault corrected')
        f%bit = 64
        call check(ft_inject_add(ctx, f) == FT_ERR_INVALID_VALUE, 'bit 64 refused')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
    end subroutine injection

    subroutine qr_calls()
        integer(c_int), parameter :: m = 70, n = 50
        real(c_double) :: a0(m, n), a(m, n), tau(n), wq(1), c0(m, 3), c(m, 3), ratio
        real(c_double), allocatable :: work(:)
        type(c_ptr) :: ctx, f
        type(ft_policy_t) :: p
        type(ft_fault_t) :: flt
        type(ft_report_t) :: rep
        integer(c_int) :: st, info

        call random_number(a0)
        a0 = a0 - 0.5_c_double
        ! ft_dgeqrf on the default context: query, then the factorization
        a = a0
        st = ft_dgeqrf(m, n, a, m, tau, wq, -1, info)
        call check(st == 0 .and. info == 0 .and. wq(1) >= n .and. all(a == a0), &
                   'ft_dgeqrf workspace query')
        allocate (work(int(wq(1))))
        st = ft_dgeqrf(m, n, a, m, tau, work, size(work, kind=c_int), info)
        ratio = qr_ratio(a0, a, tau, c_null_ptr)
        print '(a, f7.3)', 'ft_dgeqrf: ||A-QR||/(max(m,n)||A|| eps) = ', ratio
        call check(st == 0 .and. info == 0 .and. ratio < 30, 'ft_dgeqrf result')
        ! ft_dormqr: Q^T then Q gives C back
        call random_number(c0)
        c = c0
        st = ft_dormqr('L', 'T', m, 3, n, a, m, tau, c_null_ptr, c, m, info)
        call check(st == 0 .and. info == 0, 'ft_dormqr L T')
        st = ft_dormqr('L', 'N', m, 3, n, a, m, tau, c_null_ptr, c, m)
        call check(st == 0 .and. maxval(abs(c - c0)) < 30*m*epsilon(1.0_c_double), &
                   'ft_dormqr L N after L T: C back')

        ! ft_dgeqrf_ex with an FT factor and a trailing fault consumed by a panel: QR update
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create')
        call check(ft_qrf_create(f) == 0 .and. c_associated(f), 'ft_qrf_create')
        call check(ft_qrf_recoveries(f) == 0, 'a new FT factor holds no rotations')
        call check(ft_qrf_recoveries(c_null_ptr) == -1, 'ft_qrf_recoveries(NULL) = -1')
        call check(ft_context_set_qrf(ctx, f) == 0, 'ft_context_set_qrf')
        call check(ft_context_get_policy(ctx, p) == 0, 'get policy')
        p%nb = 8
        call check(ft_context_set_policy(ctx, p) == 0, 'nb 8')
        flt%region = FT_REGION_TRAILING
        flt%step = 2
        flt%row = 40
        flt%col = 30
        flt%bit = 55
        call check(ft_inject_add(ctx, flt) == 0, 'ft_inject_add(trailing)')
        a = a0
        st = ft_dgeqrf_ex(ctx, m, n, a, m, tau, work, size(work, kind=c_int), info, rep)
        print '(2a)', 'ft_dgeqrf_ex with an FT factor: ', ftla_report_string(rep)
        call check(st == 0 .and. info == 0 .and. rep%status == 0, 'ft_dgeqrf_ex: status 0')
        call check(rep%injected == 1 .and. rep%recovered >= 1 .and. rep%recovery == 1, &
                   'report: injected, recovered by QR update (recovery = 1)')
        call check(ft_qrf_recoveries(f) >= 1, 'the FT factor holds the rotations')
        ratio = qr_ratio(a0, a, tau, f)
        print '(a, f7.3)', 'ft_dgeqrf_ex + ft_dormqr(F): ||A-QR||/(max(m,n)||A|| eps) = ', ratio
        call check(ratio < 30, 'Q (with the rotations) * R = A')
        call check(ft_context_set_qrf(ctx, c_null_ptr) == 0, 'detach the FT factor')
        call check(ft_qrf_destroy(f) == 0, 'ft_qrf_destroy')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
    end subroutine qr_calls

    subroutine column_source_calls()
        integer(c_int), parameter :: m = 60, n = 40
        real(c_double) :: a(m, n), tau(n), work(64*n)
        type(c_ptr) :: ctx
        type(ft_policy_t) :: p
        type(ft_fault_t) :: flt
        type(ft_report_t) :: rep
        integer(c_int) :: st, info

        allocate (orig(m, n))
        call random_number(orig)
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create')
        call check(ft_context_get_policy(ctx, p) == 0, 'get policy')
        p%nb = 8
        p%keep_input = -1   ! no copy of A: only the column source can recover
        call check(ft_context_set_policy(ctx, p) == 0, 'nb 8, keep_input -1')
        flt%region = FT_REGION_TRAILING
        flt%step = 1
        flt%row = 30
        flt%col = 20
        flt%bit = 56
        ! without a source: located, not recovered
        call check(ft_inject_add(ctx, flt) == 0, 'ft_inject_add')
        a = orig
        st = ft_dgeqrf_ex(ctx, m, n, a, m, tau, work, size(work, kind=c_int), info, rep)
        call check(st == FT_ERR_NOT_RECOVERED .and. info == st .and. rep%status == st, &
                   'no input kept, no source: FT_ERR_NOT_RECOVERED in status, info, report')
        call check(any(rep%events(1:rep%nevents)%kind == FT_EVENT_LOCATED .and. &
                       rep%events(1:rep%nevents)%col == 20), 'the LOCATED event names column 20')
        ! with the Fortran column source
        call check(ft_context_set_column_source(ctx, c_funloc(column_source), c_null_ptr) == 0, &
                   'ft_context_set_column_source')
        call check(ft_inject_add(ctx, flt) == 0, 'ft_inject_add')
        a = orig
        source_calls = 0
        st = ft_dgeqrf_ex(ctx, m, n, a, m, tau, work, size(work, kind=c_int), info, rep)
        print '(a, i0, 2a)', 'column source called ', source_calls, ' times; ', &
            ftla_report_string(rep)
        call check(st == 0 .and. rep%recovered >= 1 .and. source_calls > 0, &
                   'recovered with the Fortran column source')
        call check(qr_ratio(orig, a, tau, c_null_ptr) < 30, 'the recovered factorization')
        call check(ft_context_set_column_source(ctx, c_null_funptr, c_null_ptr) == 0, &
                   'remove the column source')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
        deallocate (orig)
    end subroutine column_source_calls

    subroutine dgels_calls()
        integer(c_int), parameter :: m = 40, n = 12
        real(c_double), parameter :: eps = epsilon(1.0_c_double)
        real(c_double) :: a0(m, n), a(m, n), b0(m, 2), b(m, 2), r(m, 2), wq(1), work(4096)
        real(c_double) :: aw0(n, m), aw(n, m), bw(m, 2), bw0(n, 2)
        integer(c_int) :: st, info
        call random_number(a0)
        call random_number(b0)
        ! overdetermined: min ||b - A x||, so A^T (b - A x) = 0
        a = a0
        b = b0
        st = ft_dgels('N', m, n, 2, a, m, b, m, wq, -1, info)
        call check(st == 0 .and. wq(1) >= 1, 'ft_dgels query')
        st = ft_dgels('N', m, n, 2, a, m, b, m, work, size(work, kind=c_int), info)
        r = b0 - matmul(a0, b(1:n, :))
        call check(st == 0 .and. info == 0, 'ft_dgels overdetermined: status')
        call check(maxval(abs(matmul(transpose(a0), r))) <= &
                   30*m*eps*maxval(abs(a0))*(maxval(abs(a0))*maxval(abs(b(1:n, :)))*n + &
                                             maxval(abs(b0))), &
                   'ft_dgels overdetermined: A^T r = 0')
        ! underdetermined (n x m, n < m): A x = b and x = A^T y (minimum norm)
        aw0 = transpose(a0)
        aw = aw0
        bw0 = b0(1:n, :)
        bw = 0
        bw(1:n, :) = bw0
        st = ft_dgels('N', n, m, 2, aw, n, bw, m, work, size(work, kind=c_int), info)
        call check(st == 0 .and. info == 0, 'ft_dgels underdetermined: status')
        call check(maxval(abs(matmul(aw0, bw) - bw0)) <= &
                   30*m*eps*maxval(abs(aw0))*maxval(abs(bw))*m, 'ft_dgels underdetermined: A x = b')
        ! x in the row space: x = A^T y with y = (A A^T)^-1 A x; check x - A^T y small
        call check(maxval(abs(bw - matmul(transpose(aw0), lsq_rowspace(aw0, bw)))) <= &
                   1e-8_c_double*maxval(abs(bw)), 'ft_dgels underdetermined: minimum norm')
    end subroutine dgels_calls

    !> y with A^T y closest to x (normal equations of the small n x n system A A^T y = A x)
    function lsq_rowspace(aw, x) result(y)
        real(c_double), intent(in) :: aw(:, :), x(:, :)
        real(c_double) :: y(size(aw, 1), size(x, 2))
        real(c_double) :: g(size(aw, 1), size(aw, 1)), rhs(size(aw, 1), size(x, 2)), f
        integer :: i, j, nn
        nn = size(aw, 1)
        g = matmul(aw, transpose(aw))
        rhs = matmul(aw, x)
        ! Gaussian elimination without pivoting (g is symmetric positive definite)
        do j = 1, nn
            do i = j + 1, nn
                f = g(i, j)/g(j, j)
                g(i, j:) = g(i, j:) - f*g(j, j:)
                rhs(i, :) = rhs(i, :) - f*rhs(j, :)
            end do
        end do
        do j = nn, 1, -1
            y(j, :) = (rhs(j, :) - matmul(g(j, j + 1:), y(j + 1:, :)))/g(j, j)
        end do
    end function lsq_rowspace

    subroutine trace_and_model()
        integer(c_int), parameter :: m = 96, n = 64
        real(c_double) :: a(m, n), tau(n), work(64*n)
        type(c_ptr) :: ctx
        type(ft_trace_t), target :: tr
        type(ft_span_t), target :: spans(512)
        type(ft_qr_model_t) :: mdl
        type(ft_policy_t) :: p
        integer(c_int) :: st, info, i
        logical :: ok, panel_seen
        call random_number(a)
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create')
        call check(ft_context_get_policy(ctx, p) == 0, 'get policy')
        p%nb = 16
        call check(ft_context_set_policy(ctx, p) == 0, 'nb 16')
        tr%spans = c_loc(spans)
        tr%capacity = size(spans)
        call check(ft_context_set_trace(ctx, c_loc(tr)) == 0, 'ft_context_set_trace')
        st = ft_dgeqrf_ex(ctx, m, n, a, m, tau, work, size(work, kind=c_int), info)
        call check(st == 0, 'traced ft_dgeqrf_ex')
        ok = tr%count > 0 .and. tr%count <= tr%capacity .and. tr%total > 0
        panel_seen = .false.
        do i = 1, int(min(tr%count, tr%capacity))
            ok = ok .and. spans(i)%lane >= 0 .and. spans(i)%lane < FT_NLANES .and. &
                 spans(i)%phase >= 0 .and. spans(i)%phase < FT_NPHASES .and. &
                 spans(i)%t1 >= spans(i)%t0
            if (spans(i)%phase == FT_PHASE_PANEL) panel_seen = .true.
        end do
        print '(a, i0, a, i0, a, es10.3, a)', 'trace: ', tr%count, ' spans, ', tr%dropped, &
            ' dropped, ', tr%total, ' s'
        call check(ok, 'trace: spans with valid lanes, phases and times')
        call check(panel_seen, 'trace: panel spans (4 panels of nb 16)')
        call check(ft_context_set_trace(ctx, c_null_ptr) == 0, 'stop tracing')
        st = ft_dgeqrf_model(ctx, 512, 512, 0, mdl)
        print '(a, i0, a, es10.3, a, i0, 4a)', 'ft_dgeqrf_model: status ', st, ', ', mdl%seconds, &
            ' s, nb ', mdl%nb, ', device "', ftla_string(mdl%device), '", cache "', &
            ftla_string(mdl%cache)//'"'
        call check(st == 0 .and. mdl%seconds > 0 .and. mdl%panel == FT_PANEL_CPU .and. &
                   mdl%nb == 16 .and. mdl%source >= 1 .and. mdl%source <= 3 .and. &
                   len(ftla_string(mdl%device)) > 0, 'ft_dgeqrf_model on a CPU context')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
    end subroutine trace_and_model

    subroutine gpu_errors()
        type(c_ptr) :: ctx
        type(ft_report_t) :: rep
        real(c_double) :: tau(8)
        integer(c_int) :: st, info
        logical :: ok
        if (ft_cuda_available() /= 0) then
            print '(a)', 'gpu_errors: a GPU is usable; the error paths without one are not run'
            return
        end if
        ! without a usable GPU, on the default context (no_gpu says which status)
        st = ft_dgemm_gpu('N', 'N', 4, 4, 4, 1.0_c_double, c_null_ptr, 4, c_null_ptr, 4, &
                          0.0_c_double, c_null_ptr, 4)
        call check(no_gpu(st, .true.), 'ft_dgemm_gpu without a GPU')
        st = ft_dgemm_gpu_ex(c_null_ptr, 'N', 'N', 4, 4, 4, 1.0_c_double, c_null_ptr, 4, &
                             c_null_ptr, 4, 0.0_c_double, c_null_ptr, 4, rep)
        call check(no_gpu(st, .true.) .and. rep%status == st, 'ft_dgemm_gpu_ex without a GPU')
        st = ft_dgeqrf_gpu(8, 8, c_null_ptr, 8, tau, info)
        call check(no_gpu(st, .true.) .and. info == st, 'ft_dgeqrf_gpu without a GPU')
        st = ft_dgeqrf_gpu_ex(c_null_ptr, 8, 8, c_null_ptr, 8, tau, info, rep)
        call check(no_gpu(st, .true.) .and. rep%status == st, 'ft_dgeqrf_gpu_ex without a GPU')
        st = ft_dormqr_gpu('L', 'N', 8, 2, 8, c_null_ptr, 8, tau, c_null_ptr, c_null_ptr, 8, info)
        call check(no_gpu(st, .true.), 'ft_dormqr_gpu without a GPU')
        st = ft_dgels_gpu('N', 8, 8, 1, c_null_ptr, 8, c_null_ptr, 8, info)
        call check(no_gpu(st, .true.), 'ft_dgels_gpu without a GPU')
        ! a CPU context: FT_ERR_INVALID_VALUE (or FT_ERR_NOT_BUILT first without CUDA)
        call check(ft_context_create(ctx, FT_DEVICE_CPU) == 0, 'ft_context_create')
        st = ft_dgemm_gpu_ex(ctx, 'N', 'N', 4, 4, 4, 1.0_c_double, c_null_ptr, 4, c_null_ptr, &
                             4, 0.0_c_double, c_null_ptr, 4)
        ok = st == FT_ERR_INVALID_VALUE .or. (ft_have_cuda() == 0 .and. st == FT_ERR_NOT_BUILT)
        call check(ok, 'ft_dgemm_gpu_ex on a CPU context')
        st = ft_context_set_stream(ctx, c_null_ptr)
        ok = st == FT_ERR_INVALID_VALUE .or. (ft_have_cuda() == 0 .and. st == FT_ERR_NOT_BUILT)
        call check(ok, 'ft_context_set_stream on a CPU context')
        call check(ft_context_destroy(ctx) == 0, 'ft_context_destroy')
        ! CUDA asked for explicitly
        st = ft_context_create(ctx, FT_DEVICE_CUDA)
        call check(no_gpu(st, .false.) .and. .not. c_associated(ctx), &
                   'ft_context_create(CUDA) without a GPU')
    end subroutine gpu_errors

    !> the documented status of a _gpu call without a usable GPU: on the default context
    !> (on_default), which FTLA_DEVICE=cpu makes a CPU context, FT_ERR_INVALID_VALUE (a build
    !> without CUDA may say FT_ERR_NOT_BUILT first); otherwise FT_ERR_NOT_BUILT without CUDA,
    !> FT_ERR_NO_DEVICE with it
    logical function no_gpu(st, on_default)
        integer(c_int), intent(in) :: st
        logical, intent(in) :: on_default
        if (on_default .and. ft_context_device(ft_default_context()) == FT_DEVICE_CPU) then
            no_gpu = st == FT_ERR_INVALID_VALUE .or. &
                     (ft_have_cuda() == 0 .and. st == FT_ERR_NOT_BUILT)
        else if (ft_have_cuda() == 0) then
            no_gpu = st == FT_ERR_NOT_BUILT
        else
            no_gpu = st == FT_ERR_NO_DEVICE
        end if
    end function no_gpu

    subroutine last_status()
        external :: dropin_bad
        call dropin_bad()
        call check(ft_last_status() == -3, 'ft_last_status (module) after FT_DGEMM with M = -1')
    end subroutine last_status
end program test_fortran_module

!> A drop-in call with an illegal M (argument 3); no `use ftla` here. The message goes to the
!> BLAS library's XERBLA (this program defines none), which prints it.
subroutine dropin_bad()
    implicit none
    external :: ft_dgemm
    double precision :: a(1, 1), c(1, 1)
    a = 1
    c = 0
    call ft_dgemm('N', 'N', -1, 1, 1, 1.0d0, a, 1, a, 1, 0.0d0, c, 1)
end subroutine dropin_bad
