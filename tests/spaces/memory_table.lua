-- hostile: grows a table of strings inside valid()
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1 } },
    valid = function(config)
        local hoard = {}
        for i = 1, 100000000 do
            hoard[i] = ("x"):rep(1000) .. i
        end
        return true
    end,
}
