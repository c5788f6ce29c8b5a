-- hostile: valid() never returns
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2 } },
    valid = function(config, problem, device)
        while true do end
    end,
}
