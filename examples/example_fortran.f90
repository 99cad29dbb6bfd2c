!> example_fortran.f90 -- ftla from Fortran: the drop-in routines and the module `ftla`.
!>
!> 1. ft_dgemm (module): C = A*B on the default context; compared with a straightforward triple loop.
!> 2. ft_dgemm_ex (module): C = 0.5*A^T*B + 2*C on an explicit CPU context with a policy change
!>    (16 x 16 verification tiles) and one planned fault (a bit flip in C while it is computed);
!>    checks that the report says it was detected and corrected, and the result against the loop.
!> 3. The drop-in routines (subroutine dropin below, which does not use the module): a program that
!>    calls DGEMM and DGEQRF renames them FT_DGEMM and FT_DGEQRF and changes nothing else. The
!>    product is checked against the triple loop, the factorization by rebuilding A from R and the
!>    Householder vectors in the program.
!> 4. ft_dgeqrf_ex (module) with a fault in a finished row of R, corrected; Q*R rebuilt with
!>    ft_dormqr and compared with A.
!> Prints the errors; stops with `error stop` (non-zero exit status) when anything is wrong.
program example_fortran
    use ftla
    implicit none

    integer(c_int), parameter :: m = 37, n = 29, k = 41
    real(c_double), parameter :: eps = epsilon(1.0_c_double)
    real(c_double) :: a(m, k), at(k, m), b(k, n), c(m, n), c0(m, n), cref(m, n), bound(m, n)
    real(c_double) :: err
    type(c_ptr) :: ctx
    type(ft_fault_t) :: fault
    type(ft_report_t) :: rep
    type(ft_policy_t) :: policy
    integer(c_int) :: status
    integer :: i, j, l

    call random_number(a)
    call random_number(b)
    a = 2*a - 1
    b = 2*b - 1

    ! ---- 1. plain call ---------------------------------------------------------------------
    c = huge(1.0_c_double) ! beta = 0: C is output only
    status = ft_dgemm('N', 'N', m, n, k, 1.0_c_double, a, m, b, k, 0.0_c_double, c, m)
    if (status /= FT_SUCCESS) then
        print '(a, i0, 2a)', 'ft_dgemm returned ', status, ': ', ftla_strerror(status)
        error stop 1
    end if
    cref = 0
    bound = 0
    do j = 1, n
        do l = 1, k
            do i = 1, m
                cref(i, j) = cref(i, j) + a(i, l)*b(l, j)
                bound(i, j) = bound(i, j) + abs(a(i, l)*b(l, j))
            end do
        end do
    end do
    ! both results are within gamma_k |A||B| of the exact product
    err = maxval(abs(c - cref))
    print '(a, es10.3, a, es10.3, a)', 'ft_dgemm    : max |C - C_loop| = ', err, &
        '  (bound ', 2*k*eps*maxval(bound), ')'
    if (.not. all(abs(c - cref) <= 2*k*eps*bound)) error stop 'ft_dgemm: wrong result'

    ! ---- 2. explicit context, a fault, the report -------------------------------------------
    status = ft_context_create(ctx, FT_DEVICE_CPU)
    if (status /= FT_SUCCESS) then
        print '(2a)', 'ft_context_create: ', ftla_strerror(status)
        error stop 1
    end if
    ! policy: read the defaults, change the tile, write back (3 x 2 tiles of C, two partial)
    if (ft_context_get_policy(ctx, policy) /= FT_SUCCESS) error stop 'ft_context_get_policy failed'
    if (policy%protect /= 1 .or. policy%tol /= 2.0_c_double) error stop 'unexpected default policy'
    policy%tile = 16
    if (ft_context_set_policy(ctx, policy) /= FT_SUCCESS) error stop 'ft_context_set_policy failed'

    fault%region = FT_REGION_C
    fault%row = 21       ! 0-based, as in C: in tile (1, 1), 16 x 13
    fault%col = 18
    fault%bit = 62       ! top exponent bit: |x| in [1,2) becomes Inf/NaN, smaller |x| huge
    status = ft_inject_add(ctx, fault)
    if (status /= FT_SUCCESS) error stop 'ft_inject_add failed'

    at = transpose(a)
    c0 = cref
    c = c0
    status = ft_dgemm_ex(ctx, 'T', 'N', m, n, k, 0.5_c_double, at, k, b, k, 2.0_c_double, c, m, rep)
    print '(a, i0, 2a)', 'ft_dgemm_ex : status ', status, ' = ', ftla_strerror(status)
    print '(a, 6(i0, a))', '              injected ', rep%injected, ', detected ', rep%detected, &
        ', corrected ', rep%corrected, ', uncorrectable ', rep%uncorrectable, ', events ', &
        rep%nevents, ', backend ', rep%backend, ''
    do i = 1, rep%nevents
        print '(a, i0, a, i0, a, i0, a, es24.16, a, es24.16)', '              event ', &
            rep%events(i)%kind, ' at (', rep%events(i)%row, ',', rep%events(i)%col, '): ', &
            rep%events(i)%before, ' -> ', rep%events(i)%after
    end do
    if (status /= FT_SUCCESS) error stop 'ft_dgemm_ex failed'
    if (rep%status /= FT_SUCCESS .or. rep%backend /= FT_DEVICE_CPU) error stop 'bad report header'
    if (rep%injected /= 1 .or. rep%detected < 1 .or. rep%corrected < 1 .or. &
        rep%uncorrectable /= 0) error stop 'the fault was not detected and corrected'
    if (rep%nevents < 2) error stop 'missing events'
    if (rep%events(1)%kind /= FT_EVENT_INJECTED .or. rep%events(1)%row /= 21 .or. &
        rep%events(1)%col /= 18) error stop 'wrong injection event'
    if (.not. any(rep%events(2:rep%nevents)%kind == FT_EVENT_CORRECTED)) &
        error stop 'no correction event'

    ! C = 0.5*A*B + 2*C0 with C0 = A*B (the triple-loop result) = 2.5*cref. The corrected element
    ! is rebuilt from its row checksum (prediction minus the other elements of the row), so its
    ! error is bounded normwise (k + n terms), not componentwise: compare normwise.
    err = maxval(abs(c - 2.5_c_double*cref))
    print '(a, es10.3, a, es10.3, a)', 'ft_dgemm_ex : max |C - C_loop| = ', err, &
        '  (bound ', 2*(k + n + 2)*eps*2.5_c_double*maxval(bound), ')'
    if (.not. (err <= 2*(k + n + 2)*eps*2.5_c_double*maxval(bound))) &
        error stop 'ft_dgemm_ex: wrong result'

    ! ---- 3. the drop-in routines ------------------------------------------------------------
    call dropin()

    ! ---- 4. ft_dgeqrf_ex with a fault in R, corrected; Q*R against A --------------------------
    call qr_module(ctx)

    status = ft_context_destroy(ctx)
    print '(a)', 'example_fortran: OK'

contains

    !> Part 4: ft_dgeqrf_ex on the explicit context with a bit flip in a finished row of R (panel
    !> step 1, nb = 8), corrected by the final check; Q*R formed by ft_dormqr from R.
    subroutine qr_module(ctx)
        type(c_ptr), intent(in) :: ctx
        integer(c_int), parameter :: m = 60, n = 40
        real(c_double), parameter :: eps = epsilon(1.0_c_double)
        real(c_double) :: a(m, n), a0(m, n), qr(m, n), tau(n), work(n*64), ratio
        type(ft_policy_t) :: policy
        type(ft_fault_t) :: fault
        type(ft_report_t) :: rep
        integer(c_int) :: status, info, j

        call random_number(a0)
        a = a0
        if (ft_context_get_policy(ctx, policy) /= FT_SUCCESS) error stop 'get_policy failed'
        policy%nb = 8
        if (ft_context_set_policy(ctx, policy) /= FT_SUCCESS) error stop 'set_policy failed'
        fault%region = FT_REGION_R
        fault%step = 1   ! after panel step 1, rows 0..15 of R are finished
        fault%row = 3
        fault%col = 20
        fault%bit = 60
        if (ft_inject_add(ctx, fault) /= FT_SUCCESS) error stop 'ft_inject_add failed'
        status = ft_dgeqrf_ex(ctx, m, n, a, m, tau, work, size(work, kind=c_int), info, rep)
        print '(2a)', 'ft_dgeqrf_ex: ', ftla_report_string(rep)
        if (status /= FT_SUCCESS .or. info /= FT_SUCCESS) error stop 'ft_dgeqrf_ex failed'
        if (rep%injected /= 1 .or. rep%corrected /= 1 .or. rep%uncorrectable /= 0) &
            error stop 'the fault in R was not corrected'
        ! Q*R = ft_dormqr('L', 'N') applied to [R; 0]
        qr = 0
        do j = 1, n
            qr(1:j, j) = a(1:j, j)
        end do
        status = ft_dormqr('L', 'N', m, n, n, a, m, tau, c_null_ptr, qr, m, info)
        if (status /= FT_SUCCESS) error stop 'ft_dormqr failed'
        ratio = maxval(sum(abs(qr - a0), dim=1))/(m*maxval(sum(abs(a0), dim=1))*eps)
        print '(a, f8.3)', 'ft_dgeqrf_ex: ||A - QR||_1 / (m ||A||_1 eps) = ', ratio
        if (.not. ratio < 30) error stop 'ft_dgeqrf_ex: wrong factorization'
    end subroutine qr_module
end program example_fortran

!> Part 3: FT_DGEMM and FT_DGEQRF with exactly DGEMM's and DGEQRF's arguments (no `use ftla`
!> here: in a scope that uses the module, ft_dgemm and ft_dgeqrf are its C-API functions).
subroutine dropin()
    implicit none
    integer, parameter :: m = 50, n = 30, k = 20
    double precision, parameter :: eps = epsilon(1.0d0)
    double precision :: a(m, k), b(k, n), c(m, n), cref(m, n), bound(m, n)
    double precision :: f(m, n), f0(m, n), x(m, n), tau(n), wq(1), s, ratio
    double precision, allocatable :: work(:)
    integer :: info, lwork, i, j, l
    integer, external :: ft_last_status
    external :: ft_dgemm, ft_dgeqrf

    call random_number(a)
    call random_number(b)
    a = a - 0.5d0
    b = b - 0.5d0

    ! C = A*B, as CALL DGEMM('N', 'N', M, N, K, 1D0, A, M, B, K, 0D0, C, M) would compute it
    c = huge(1.0d0)
    call ft_dgemm('N', 'N', m, n, k, 1.0d0, a, m, b, k, 0.0d0, c, m)
    ! DGEMM has no INFO: a library error is printed and kept for FT_LAST_STATUS()
    if (ft_last_status() /= 0) error stop 'FT_DGEMM failed'
    cref = 0
    bound = 0
    do j = 1, n
        do l = 1, k
            do i = 1, m
                cref(i, j) = cref(i, j) + a(i, l)*b(l, j)
                bound(i, j) = bound(i, j) + abs(a(i, l)*b(l, j))
            end do
        end do
    end do
    print '(a, es10.3)', 'FT_DGEMM    : max |C - C_loop| = ', maxval(abs(c - cref))
    if (.not. all(abs(c - cref) <= 2*k*eps*bound)) error stop 'FT_DGEMM: wrong result'

    ! A = Q*R of the m x n product, with DGEQRF's workspace query first
    f0 = c
    f = f0
    call ft_dgeqrf(m, n, f, m, tau, wq, -1, info)
    if (info /= 0 .or. wq(1) < n) error stop 'FT_DGEQRF: workspace query failed'
    lwork = int(wq(1))
    allocate (work(lwork))
    call ft_dgeqrf(m, n, f, m, tau, work, lwork, info)
    if (info /= 0) then
        print '(a, i0)', 'FT_DGEQRF: INFO = ', info
        error stop 'FT_DGEQRF failed'
    end if
    ! rebuild A = H(1) ... H(n) [R; 0], H(j) = I - tau(j) v v^T with v = [0; 1; f(j+1:m, j)]
    x = 0
    do j = 1, n
        x(1:j, j) = f(1:j, j)
    end do
    do j = n, 1, -1
        do l = 1, n
            s = x(j, l) + dot_product(f(j + 1:m, j), x(j + 1:m, l))
            x(j, l) = x(j, l) - tau(j)*s
            x(j + 1:m, l) = x(j + 1:m, l) - tau(j)*s*f(j + 1:m, j)
        end do
    end do
    ! LAPACK's dqrt01 ratio ||A - QR||_1 / (m ||A||_1 eps), accepted below 30
    ratio = maxval(sum(abs(x - f0), dim=1))/(m*maxval(sum(abs(f0), dim=1))*eps)
    print '(a, f8.3)', 'FT_DGEQRF   : ||A - QR||_1 / (m ||A||_1 eps) = ', ratio
    if (.not. ratio < 30) error stop 'FT_DGEQRF: wrong factorization'
end subroutine dropin

