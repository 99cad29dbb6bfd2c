!> example_fortran.f90 -- ftla from Fortran through the module `ftla` (include/ftla.f90).
!>
!> 1. ft_dgemm: C = A*B on the default context; compared with a straightforward triple loop.
!> 2. ft_dgemm_ex: C = 0.5*A^T*B + 2*C on an explicit CPU context with a policy change (16 x 16
!>    verification tiles) and one planned fault (a bit flip in C while it is computed); checks
!>    that the report says it was detected and corrected, and the result against the triple loop.
!> Prints the max errors; stops with `error stop` when anything is wrong.
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

    status = ft_context_destroy(ctx)
    print '(a)', 'example_fortran: OK'
end program example_fortran
